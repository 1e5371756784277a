// The token read model: single-token reads and Lucene-style search (deduplication is a search too: fingerprint AND type
// AND the caller's token:create scope).
// It holds no plaintext token data: the encrypted envelope, keyed hashes of the search indexes, and the evaluated mask.
import type { QueryNode, TokenRecord } from '@vault/domain';
import type { Page } from './read-models';

/** The token document; `search_hashes` are what `data:` terms match. Same shape as the domain's TokenRecord. */
export type TokenDocument = TokenRecord;

export interface TokenSearchRequest {
  tenantId: string;
  /**
   * The caller's query AND the access-rule scope, as one AST built by the application layer. `data` node values are
   * already keyed hashes (TokenCrypto.searchHash of the normalised value), never plaintext. null matches every token.
   * The tenant filter is NOT in the AST: adapters add it as a separate, mandatory condition.
   */
  query: QueryNode | null;
  /** Epoch ms: tokens whose expires_at is at or before this instant are left out (and not counted). */
  now: number;
  page: number;
  size: number;
}

export interface TokenSearchIndex {
  /** The token with that id in that tenant, unless it is missing, deleted or expired at `now`. */
  get(tenantId: string, id: string, now: number): Promise<TokenDocument | null>;
  /** Ordered by created_at descending, then id ascending; `total` is the exact number of matches. */
  search(request: TokenSearchRequest): Promise<Page<TokenDocument>>;
  /** Ids (with tenants) of tokens whose expires_at is at or before `now`, oldest first, for the expiry sweep. */
  expired(now: number, limit: number): Promise<Array<{ id: string; tenant_id: string }>>;
  /** How many tokens of every tenant are alive at `now` (not expired), by type; for the operator's metrics. */
  countByType(now: number): Promise<Record<string, number>>;
}
