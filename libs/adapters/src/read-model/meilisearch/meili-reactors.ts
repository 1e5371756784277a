// Reactors in the Meilisearch read model, the Meilisearch twin of sqlite-reactors.ts. Documents are keyed by
// reactorKey(tenant, id); the document is the reactor record, whose configuration stays sealed.
//
// Names are matched and sorted as formulas' are (meili-formulas.ts explains why every filtered or sorted field is an
// ASCII encoding): `name_sort` and `name_grams` come from the same helpers, and formulaNameMatcher decides. Tenant and
// formula ids are UUIDs the server may compare case-insensitively, so every hit's raw values are checked again.
import {
  formulaNameMatcher,
  type Page,
  type ReactorDocument,
  type ReactorListQuery,
  type ReactorOfFormulaDocument,
  type ReactorReadModel,
} from '@vault/application';
import { reactorKey } from '@vault/domain';
import type { RecordAny } from 'meilisearch';
import { meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import { fetchAll } from './meili-tasks';
import { formulaNameGrams, formulaNarrowingFilter, formulaSortKey } from './meili-formulas';
import type { MeiliReadModel } from './meili-read-model';

const COLLECTION = 'reactors';
const SORT = ['name_sort:asc', 'id:asc'];
/** Documents per request when the adapter collects candidates; it keeps requesting until it has all of them. */
// What the in-memory paths need to match and order a reactor: never `doc`, which holds the sealed configuration.
const CANDIDATE_FIELDS = ['id', 'tenant_id', 'name', 'name_sort'];
const DOCUMENT_FIELDS = ['id', 'tenant_id', 'formula_id', 'doc'];

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

const reactorsIndex = meiliDocumentIndex(
  COLLECTION,
  {
    tenant_id: (d) => stringOf(d.tenant_id),
    formula_id: (d) => stringOf(d.formula_id),
    // Kept raw so formulaNameMatcher runs on exactly the string it is defined on.
    name: (d) => stringOf(d.name),
    name_sort: (d) => formulaSortKey(stringOf(d.name)),
  },
  { filterableAttributes: ['tenant_id', 'formula_id', 'name_grams', 'id'], sortableAttributes: ['name_sort', 'id'] },
);

// name_grams is an array, which meiliDocumentIndex's scalar fields do not cover: it is added beside them.
export const meiliReactorsCollection: MeiliCollection = {
  ...reactorsIndex,
  tenantFilter: (tenantId) => tenantFilter(tenantId),
  toDocument: (id, revision, doc) => ({ ...reactorsIndex.toDocument(id, revision, doc), name_grams: formulaNameGrams(stringOf(doc.name)) }),
};

/** The tenant condition; keep it its own element of `filter`, never concatenated into another one. */
const tenantFilter = (tenantId: string): string => `tenant_id = ${meiliQuote(tenantId)}`;

const ownedBy = (tenantId: string) => (hit: RecordAny): boolean => hit.tenant_id === tenantId;
const toReactor = (hit: RecordAny): ReactorDocument => meiliReactorsCollection.fromDocument(hit) as unknown as ReactorDocument;

// The order Meilisearch applies for SORT: name_sort and document ids are ASCII, which normalization leaves as they are.
// Within one tenant the document id (tenant, then id) orders as the reactor id does.
const byNameThenId = (a: RecordAny, b: RecordAny): number =>
  compare(a.name_sort as string, b.name_sort as string) || compare(a.id as string, b.id as string);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A name filter every name satisfies (none, empty, or only `*`): Meilisearch can then sort and paginate alone. */
const matchesEveryName = (name: string | null): boolean => name === null || /^\**$/.test(name);

export class MeiliReactorReadModel implements ReactorReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async get(tenantId: string, id: string): Promise<ReactorDocument | null> {
    const key = reactorKey(tenantId, id);
    const hits = await this.fetchAll([tenantFilter(tenantId), `id = ${meiliQuote(key)}`], DOCUMENT_FIELDS);
    // String filters ignore case: keep only the exact key of this tenant.
    const hit = hits.find((h) => h.id === key && ownedBy(tenantId)(h));
    return hit ? toReactor(hit) : null;
  }

  async list(tenantId: string, { name, page, size }: ReactorListQuery): Promise<Page<ReactorDocument>> {
    if (matchesEveryName(name)) {
      const served = await this.serverPage(tenantId, page, size);
      if (served) return served;
    }
    return this.matchedPage(tenantId, name, page, size);
  }

  async ofFormula(formulaId: string): Promise<ReactorOfFormulaDocument[]> {
    const hits = await this.fetchAll([`formula_id = ${meiliQuote(formulaId)}`], DOCUMENT_FIELDS);
    // Ordered here, on the whole lower-cased name's UTF-8 bytes (the embedded adapter's order), not on the cut sort key.
    return hits
      .filter((hit) => hit.formula_id === formulaId)
      .map((hit) => {
        const { id, tenant_id, name, configuration_shape } = toReactor(hit);
        return { key: Buffer.from(name.toLowerCase(), 'utf8').toString('hex'), reactor: { id, tenant_id, name, configuration_shape } };
      })
      .sort((a, b) => compare(a.key, b.key) || compare(a.reactor.id, b.reactor.id))
      .map(({ reactor }) => reactor);
  }

  /** Meilisearch sorts and paginates; page/hitsPerPage makes totalHits exact (maxTotalHits is raised for every index). */
  private async serverPage(tenantId: string, page: number, size: number): Promise<Page<ReactorDocument> | null> {
    const response = await this.model.index(COLLECTION).search(null, {
      filter: [tenantFilter(tenantId)],
      sort: SORT,
      page,
      hitsPerPage: size,
      attributesToRetrieve: DOCUMENT_FIELDS,
    });
    // A tenant id matching another only case-insensitively would make this page wrong: the exact path answers then.
    if (!response.hits.every(ownedBy(tenantId))) return null;
    return { total: response.totalHits, items: response.hits.map(toReactor) };
  }

  /**
   * Meilisearch has no filter for `*` patterns, so it only narrows; formulaNameMatcher decides, and the page is cut
   * from the matched, ordered list of the tenant's candidates (id, tenant, name and sort key only).
   */
  private async matchedPage(tenantId: string, name: string | null, page: number, size: number): Promise<Page<ReactorDocument>> {
    const matches = formulaNameMatcher(name);
    const candidates = await this.fetchAll([tenantFilter(tenantId), ...formulaNarrowingFilter(name)], CANDIDATE_FIELDS);
    const matched = candidates.filter((c) => ownedBy(tenantId)(c) && typeof c.name === 'string' && matches(c.name)).sort(byNameThenId);
    const ids = matched.slice((page - 1) * size, page * size).map((c) => c.id as string);
    return { total: matched.length, items: await this.documents(tenantId, ids) };
  }

  /** The full documents of one page, in the page's order; one deleted since the candidates were read is left out. */
  private async documents(tenantId: string, ids: string[]): Promise<ReactorDocument[]> {
    if (ids.length === 0) return [];
    const idIn = `id IN [${ids.map(meiliQuote).join(', ')}]`;
    const hits = await this.fetchAll([tenantFilter(tenantId), idIn], DOCUMENT_FIELDS);
    const byId = new Map(hits.filter(ownedBy(tenantId)).map((hit) => [hit.id as string, hit]));
    return ids.flatMap((id) => {
      const hit = byId.get(id);
      return hit ? [toReactor(hit)] : [];
    });
  }

  private fetchAll(filter: string[], fields: string[]): Promise<RecordAny[]> {
    return fetchAll(this.model.index(COLLECTION), filter, fields);
  }
}
