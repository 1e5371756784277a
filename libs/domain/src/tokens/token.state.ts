// A token as the decisions see it. The record suits a read-model document too (data stays encrypted in it).
import type { TokenContent } from './token.events';

export interface TokenRecord extends TokenContent {
  id: string;
  tenant_id: string;
  created_by: string;
  created_at: string;
  /** Null until the first update. */
  modified_by: string | null;
  modified_at: string | null;
}

/**
 * `deleted` is kept apart from `absent` because a deleted id stays taken: creating it again is a conflict, and its
 * data key is gone, so reusing the id could never bring the old data back anyway.
 */
export type TokenState =
  | { status: 'absent' }
  | { status: 'active'; token: TokenRecord }
  | { status: 'deleted'; id: string; tenant_id: string };

export const initialTokenState = (): TokenState => ({ status: 'absent' });

/** A token whose `expires_at` is now or past is treated as gone by every read and write, before the sweep deletes it. */
export const isExpired = (token: Pick<TokenRecord, 'expires_at'>, now: Date): boolean =>
  token.expires_at !== null && Date.parse(token.expires_at) <= now.getTime();

/** The token a caller of `tenantId` may see at `now`, or null: another tenant's, deleted or expired tokens are missing. */
export const visibleToken = (state: TokenState, tenantId: string | null, now: Date): TokenRecord | null => {
  if (state.status !== 'active') return null;
  const { token } = state;
  if (token.tenant_id !== tenantId || isExpired(token, now)) return null;
  return token;
};
