// Tokens in the Meilisearch read model: one document per token holding the original as JSON in `doc` (its data stays
// encrypted in there) beside the flat fields of meili-token-filter.ts, which every filter and sort uses.
// The tenant and expiry conditions are always their own elements of `filter`, so no compiled query can widen them,
// and every hit's raw tenant is checked again before anything is returned.
import type { Page, TokenDocument, TokenSearchIndex, TokenSearchRequest } from '@vault/application';
import { parseTokenKey, tokenKey, TOKEN_TYPES, type QueryNode } from '@vault/domain';
import type { RecordAny } from 'meilisearch';
import { meiliQuote, type MeiliCollection } from './meili-collection';
import type { MeiliReadModel } from './meili-read-model';
import {
  compileTokenFilter,
  flattenToken,
  meiliExactKey,
  meiliNumber,
  MEILI_TOKEN_FILTERABLE,
} from './meili-token-filter';

const COLLECTION = 'tokens';
// created_at_ms ties are broken by the id in JavaScript's order (id_sort), as the port and the contract expect.
const SEARCH_SORT = ['created_at_ms:desc', 'id_sort:asc'];
const EXPIRY_SORT = ['expires_at_ms:asc', 'id_sort:asc'];
const DOCUMENT_FIELDS = ['id', 'tenant_id', 'doc'];

export const meiliTokensCollection: MeiliCollection = {
  name: COLLECTION,
  settings: {
    filterableAttributes: [...MEILI_TOKEN_FILTERABLE],
    sortableAttributes: ['created_at_ms', 'expires_at_ms', 'id_sort'],
  },
  // The reserved fields go last, so nothing flattened could ever replace them.
  toDocument: (id, revision, doc) => ({
    ...flattenToken(doc as unknown as TokenDocument),
    id,
    _revision: Number(revision),
    doc: JSON.stringify(doc),
  }),
  fromDocument: (hit) => JSON.parse(hit.doc as string),
  tenantFilter: (tenantId) => meiliTokenTenantFilter(tenantId),
};

/** The tenant condition on the exact tenant key: a tenant id differing only in case or accents is another tenant. */
export const meiliTokenTenantFilter = (tenantId: string): string => `tenant_x = ${meiliQuote(meiliExactKey(tenantId))}`;

/** Tokens still alive at `now`: never expiring, or expiring after it (the port's "at or before now" is expired). */
export const meiliTokenLiveFilter = (now: number): string =>
  `(NOT expires_at_ms EXISTS OR expires_at_ms > ${meiliNumber(now)})`;

/** The whole `filter` of a search: one element each for tenant, expiry and the caller's query (ANDed by the server). */
export function meiliTokenSearchFilter(tenantId: string, query: QueryNode | null, now: number): string[] {
  const filter = [meiliTokenTenantFilter(tenantId), meiliTokenLiveFilter(now)];
  if (query !== null) filter.push(`(${compileTokenFilter(query)})`);
  return filter;
}

export const meiliTokenExpiredFilter = (now: number): string => `expires_at_ms <= ${meiliNumber(now)}`;

const ownedBy = (tenantId: string) => (hit: RecordAny): boolean => hit.tenant_id === tenantId;
const toToken = (hit: RecordAny): TokenDocument => meiliTokensCollection.fromDocument(hit) as unknown as TokenDocument;

export class MeiliTokenSearchIndex implements TokenSearchIndex {
  constructor(
    private readonly model: MeiliReadModel,
    /** Told after each search how long it ran, in seconds (the API's metrics); Meilisearch has one plan. */
    private readonly onSearch?: (plan: 'meilisearch', seconds: number) => void,
  ) {}

  /** Ids match case-insensitively, as in search and in the embedded adapter. */
  async get(tenantId: string, id: string, now: number): Promise<TokenDocument | null> {
    const idFilter = `id_x = ${meiliQuote(meiliExactKey(id.toLowerCase()))}`;
    const hits = await this.model.find(COLLECTION, [meiliTokenTenantFilter(tenantId), meiliTokenLiveFilter(now), idFilter]);
    // The document id is the token's key: its tenant and its id (ids are unique within a tenant only).
    const key = tokenKey(tenantId, id.toLowerCase());
    const hit = hits.find((h) => ownedBy(tenantId)(h) && h.id === key);
    return hit ? toToken(hit) : null;
  }

  async search({ tenantId, query, now, page, size }: TokenSearchRequest): Promise<Page<TokenDocument>> {
    const started = process.hrtime.bigint();
    // page/hitsPerPage makes totalHits exact; maxTotalHits is raised for every collection index (meiliIndexSettings).
    const response = await this.model.index(COLLECTION).search(null, {
      filter: meiliTokenSearchFilter(tenantId, query, now),
      sort: SEARCH_SORT,
      page,
      hitsPerPage: size,
      attributesToRetrieve: DOCUMENT_FIELDS,
    });
    // tenant_x is exact by construction, so this drops nothing; it is the last guard against the worst bug this index
    // could have. A dropped hit is not logged: the log line would name another tenant's token.
    const items = response.hits.filter(ownedBy(tenantId)).map(toToken);
    this.onSearch?.('meilisearch', Number(process.hrtime.bigint() - started) / 1e9);
    return { items, total: response.totalHits };
  }

  async expired(now: number, limit: number): Promise<Array<{ id: string; tenant_id: string }>> {
    const response = await this.model.index(COLLECTION).search(null, {
      filter: [meiliTokenExpiredFilter(now)],
      sort: EXPIRY_SORT,
      limit,
      attributesToRetrieve: ['id', 'tenant_id'],
    });
    return response.hits.map((hit) => ({ id: parseTokenKey(hit.id as string).id, tenant_id: hit.tenant_id as string }));
  }

  /**
   * The facet distribution of type_x over live tokens. page/hitsPerPage make it exhaustive (as they make totalHits
   * exact); hitsPerPage 0 returns no documents. There are far fewer types than maxValuesPerFacet's default of 100.
   */
  async countByType(now: number): Promise<Record<string, number>> {
    const response = await this.model.index(COLLECTION).search(null, {
      filter: [meiliTokenLiveFilter(now)],
      facets: ['type_x'],
      page: 1,
      hitsPerPage: 0,
    });
    const counts: Record<string, number> = {};
    for (const [key, n] of Object.entries(response.facetDistribution?.type_x ?? {})) {
      const type = TYPE_BY_KEY.get(key);
      if (type !== undefined) counts[type] = n;
    }
    return counts;
  }
}

/** type_x holds the key of the lower-cased type (flattenToken); the catalogue's types are lower-case already. */
const TYPE_BY_KEY = new Map<string, string>(TOKEN_TYPES.map((type) => [meiliExactKey(type), type]));
