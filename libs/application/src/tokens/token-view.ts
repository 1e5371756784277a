// A token as the API returns it: every field but the encrypted envelope and the hashes, and `data` per the access rule.
import { applyTransform, type AccessRule, type JsonValue, type TokenRecord } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import { openSealed } from './sealing/seal-token';

export interface TokenView {
  id: string;
  type: string;
  tenant_id: string;
  data?: JsonValue;
  fingerprint: string;
  fingerprint_expression: string;
  mask?: string;
  containers: string[];
  metadata: Record<string, string>;
  search_indexes: string[];
  expires_at?: string;
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
}

/** What a token's envelopes hold, when the caller has it in hand (the request that just sealed them). */
export interface OpenedToken {
  plaintext: string;
  masked: string | null;
}

/**
 * Decrypts only what the rule's transform shows: the data for reveal, the sealed mask for mask, nothing for redact.
 * A create's answer passes `opened`, the plaintext it has just sealed, instead of opening its own envelopes again.
 */
export async function toTokenView(token: TokenRecord, rule: Pick<AccessRule, 'transform'>, crypto: TokenCrypto, opened?: OpenedToken): Promise<TokenView> {
  const data = applyTransform(rule, token, {
    plaintext: rule.transform === 'reveal' ? (opened?.plaintext ?? (await openSealed(crypto, token, token.encrypted, 'data'))) : undefined,
    mask: rule.transform === 'mask' && token.masked !== null ? (opened ? opened.masked : await openSealed(crypto, token, token.masked, 'mask')) : null,
  });
  const view: TokenView = {
    id: token.id,
    type: token.type,
    tenant_id: token.tenant_id,
    ...(data === undefined ? {} : { data }),
    fingerprint: token.fingerprint,
    fingerprint_expression: token.fingerprint_expression,
    ...(token.mask === null ? {} : { mask: token.mask }),
    containers: token.containers,
    metadata: token.metadata,
    search_indexes: token.search_indexes,
    ...(token.expires_at === null ? {} : { expires_at: token.expires_at }),
    created_by: token.created_by,
    created_at: token.created_at,
    ...(token.modified_by === null ? {} : { modified_by: token.modified_by }),
    ...(token.modified_at === null ? {} : { modified_at: token.modified_at }),
  };
  return view;
}
