// The steps of a token create that POST /tokens and POST /tokenize share: the command built on the stream's current
// state, and the token it leaves.
import { assertTokenIdFree, type TokenCommand, type TokenRecord, type TokenState, type ValidTokenCreate } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import { sealToken } from './sealing/seal-token';

/**
 * The CreateToken command for `id`, built on the stream's current state: the decider's own rule is asked before
 * sealing, so a taken id never leaves a data key behind.
 */
export const createTokenCommand =
  (crypto: TokenCrypto, tenantId: string, id: string, valid: ValidTokenCreate, fingerprint: string) =>
  async (current: TokenState): Promise<TokenCommand> => {
    assertTokenIdFree(current);
    return { type: 'CreateToken', data: { id, content: await sealToken(crypto, tenantId, id, valid.draft, valid.prepared, fingerprint) } };
  };

/** The token a successful create or update leaves. */
export function activeToken(state: TokenState): TokenRecord {
  if (state.status !== 'active') throw new Error('The token is not active after the command.');
  return state.token;
}
