// Proxies in the Meilisearch read model, the Meilisearch twin of sqlite-proxies.ts. Documents are keyed by
// proxyKey(tenant, id); the document is the proxy record, whose key, destination, configuration and transforms stay
// sealed.
//
// Names are matched and sorted as formulas' are (meili-formulas.ts explains why every filtered or sorted field is an
// ASCII encoding): `name_sort` and `name_grams` come from the same helpers, and formulaNameMatcher decides. Tenant ids
// and key hashes are values the server compares case-insensitively, so every hit's raw values are checked again.
import { formulaNameMatcher, type Page, type ProxyDocument, type ProxyListQuery, type ProxyReadModel } from '@vault/application';
import { proxyKey } from '@vault/domain';
import type { RecordAny } from 'meilisearch';
import { meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import { fetchAll, idIn } from './meili-tasks';
import { formulaNameGrams, formulaNarrowingFilter, formulaSortKey } from './meili-formulas';
import type { MeiliReadModel } from './meili-read-model';

const COLLECTION = 'proxies';
const SORT = ['name_sort:asc', 'id:asc'];
// What the in-memory paths need to match and order a proxy: never `doc`, which holds the sealed secrets.
const CANDIDATE_FIELDS = ['id', 'tenant_id', 'name', 'name_sort'];
const DOCUMENT_FIELDS = ['id', 'tenant_id', 'key_hash', 'doc'];

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

const proxiesIndex = meiliDocumentIndex(
  COLLECTION,
  {
    tenant_id: (d) => stringOf(d.tenant_id),
    key_hash: (d) => stringOf(d.key_hash),
    // Kept raw so formulaNameMatcher runs on exactly the string it is defined on.
    name: (d) => stringOf(d.name),
    name_sort: (d) => formulaSortKey(stringOf(d.name)),
  },
  { filterableAttributes: ['tenant_id', 'key_hash', 'name_grams', 'id'], sortableAttributes: ['name_sort', 'id'] },
);

// name_grams is an array, which meiliDocumentIndex's scalar fields do not cover: it is added beside them.
export const meiliProxiesCollection: MeiliCollection = {
  ...proxiesIndex,
  tenantFilter: (tenantId) => tenantFilter(tenantId),
  toDocument: (id, revision, doc) => ({ ...proxiesIndex.toDocument(id, revision, doc), name_grams: formulaNameGrams(stringOf(doc.name)) }),
};

/** The tenant condition; keep it its own element of `filter`, never concatenated into another one. */
const tenantFilter = (tenantId: string): string => `tenant_id = ${meiliQuote(tenantId)}`;

const ownedBy = (tenantId: string) => (hit: RecordAny): boolean => hit.tenant_id === tenantId;
const toProxy = (hit: RecordAny): ProxyDocument => meiliProxiesCollection.fromDocument(hit) as unknown as ProxyDocument;

// The order Meilisearch applies for SORT: name_sort and document ids are ASCII, which normalization leaves as they are.
// Within one tenant the document id (tenant, then id) orders as the proxy id does.
const byNameThenId = (a: RecordAny, b: RecordAny): number =>
  compare(a.name_sort as string, b.name_sort as string) || compare(a.id as string, b.id as string);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A name filter every name satisfies (none, empty, or only `*`): Meilisearch can then sort and paginate alone. */
const matchesEveryName = (name: string | null): boolean => name === null || /^\**$/.test(name);

export class MeiliProxyReadModel implements ProxyReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async get(tenantId: string, id: string): Promise<ProxyDocument | null> {
    const key = proxyKey(tenantId, id);
    const hits = await this.fetchAll([tenantFilter(tenantId), `id = ${meiliQuote(key)}`], DOCUMENT_FIELDS);
    // String filters ignore case: keep only the exact key of this tenant.
    const hit = hits.find((h) => h.id === key && ownedBy(tenantId)(h));
    return hit ? toProxy(hit) : null;
  }

  async list(tenantId: string, { name, page, size }: ProxyListQuery): Promise<Page<ProxyDocument>> {
    if (matchesEveryName(name)) {
      const served = await this.serverPage(tenantId, page, size);
      if (served) return served;
    }
    return this.matchedPage(tenantId, name, page, size);
  }

  /** Across tenants: an invocation knows only the key. */
  async findByKeyHash(keyHash: string): Promise<ProxyDocument | null> {
    const hits = await this.fetchAll([`key_hash = ${meiliQuote(keyHash)}`], DOCUMENT_FIELDS);
    // The filter ignores case, the hash is compared exactly.
    const hit = hits.find((h) => h.key_hash === keyHash);
    return hit ? toProxy(hit) : null;
  }

  /** Meilisearch sorts and paginates; page/hitsPerPage makes totalHits exact (maxTotalHits is raised for every index). */
  private async serverPage(tenantId: string, page: number, size: number): Promise<Page<ProxyDocument> | null> {
    const response = await this.model.index(COLLECTION).search(null, {
      filter: [tenantFilter(tenantId)],
      sort: SORT,
      page,
      hitsPerPage: size,
      attributesToRetrieve: DOCUMENT_FIELDS,
    });
    // A tenant id matching another only case-insensitively would make this page wrong: the exact path answers then.
    if (!response.hits.every(ownedBy(tenantId))) return null;
    return { total: response.totalHits, items: response.hits.map(toProxy) };
  }

  /**
   * Meilisearch has no filter for `*` patterns, so it only narrows; formulaNameMatcher decides, and the page is cut
   * from the matched, ordered list of the tenant's candidates (id, tenant, name and sort key only).
   */
  private async matchedPage(tenantId: string, name: string | null, page: number, size: number): Promise<Page<ProxyDocument>> {
    const matches = formulaNameMatcher(name);
    const candidates = await this.fetchAll([tenantFilter(tenantId), ...formulaNarrowingFilter(name)], CANDIDATE_FIELDS);
    const matched = candidates.filter((c) => ownedBy(tenantId)(c) && typeof c.name === 'string' && matches(c.name)).sort(byNameThenId);
    const ids = matched.slice((page - 1) * size, page * size).map((c) => c.id as string);
    return { total: matched.length, items: await this.documents(tenantId, ids) };
  }

  /** The full documents of one page, in the page's order; one deleted since the candidates were read is left out. */
  private async documents(tenantId: string, ids: string[]): Promise<ProxyDocument[]> {
    if (ids.length === 0) return [];
    const hits = await this.fetchAll([tenantFilter(tenantId), idIn(ids)], DOCUMENT_FIELDS);
    const byId = new Map(hits.filter(ownedBy(tenantId)).map((hit) => [hit.id as string, hit]));
    return ids.flatMap((id) => {
      const hit = byId.get(id);
      return hit ? [toProxy(hit)] : [];
    });
  }

  private fetchAll(filter: string[], fields: string[]): Promise<RecordAny[]> {
    return fetchAll(this.model.index(COLLECTION), filter, fields);
  }
}
