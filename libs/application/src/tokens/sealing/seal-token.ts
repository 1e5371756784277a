// A token's sealed content, sealed and opened here only: a create or an update seals the data and the mask under the
// token's own data key, and keys the fingerprint and search hashes by the tenant, before the decider records anything.
// In the log, SealedTokenIndexEventStore (beside this file) seals the fingerprint and search hashes once more.
import { DataKeyUnavailableError, notFound, tokenContent, type PreparedToken, type TokenContent, type TokenDraft, type TokenRecord, type TokenType } from '@vault/domain';
import type { TokenCrypto } from '../../ports/token-crypto';

/** The fingerprint of a token's prepared data: what deduplication compares. */
export const tokenFingerprint = (crypto: TokenCrypto, tenantId: string, type: TokenType, prepared: PreparedToken): string =>
  crypto.fingerprint(tenantId, type, prepared.fingerprint_input);

/** The content the decider records for `draft`: plaintext never leaves this function unsealed. */
export async function sealToken(
  crypto: TokenCrypto,
  tenantId: string,
  id: string,
  draft: TokenDraft,
  prepared: PreparedToken,
  fingerprint: string,
): Promise<TokenContent> {
  const encrypted = await crypto.encrypt(tenantId, id, prepared.plaintext);
  const masked = prepared.masked === null ? null : await crypto.encrypt(tenantId, id, prepared.masked, 'mask');
  const search_hashes = [...new Set(prepared.search_values.map((value) => crypto.searchHash(tenantId, value)))];
  return tokenContent(draft, { encrypted, masked, fingerprint, search_hashes });
}

/** Opens one of a token's envelopes; a key already shredded (a delete in flight) means the token is gone: 404. */
export async function openSealed(crypto: TokenCrypto, token: TokenRecord, sealed: TokenRecord['encrypted'], purpose: 'data' | 'mask'): Promise<string> {
  try {
    return await crypto.decrypt(token.tenant_id, token.id, sealed, purpose);
  } catch (error) {
    if (error instanceof DataKeyUnavailableError) throw notFound('Token');
    throw error;
  }
}
