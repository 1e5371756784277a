// Reactor formulas in the Meilisearch read model: official formulas (tenant_id null) plus each tenant's private ones,
// the Meilisearch twin of sqlite-formulas.ts.
//
// Meilisearch normalizes every string it filters or sorts on: it trims it, applies NFKD, lower-cases it (Rust rules,
// final sigma included) and cuts it at 468 bytes (milli's normalize_facet and MAX_FACET_VALUE_LENGTH). Filters and
// sorts on raw names or tenant ids would therefore follow the server's rules, not ours. So every field this index
// filters or sorts on is an ASCII encoding that those steps leave unchanged: hex of UTF-16 code units (exact, and the
// unit JavaScript's string matching works in) or of UTF-8 bytes (byte order, the order the embedded adapter uses).
import { formulaNameMatcher, type FormulaDocument, type FormulaListQuery, type FormulaReadModel, type Page } from '@vault/application';
import type { RecordAny } from 'meilisearch';
import { meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import { fetchAll } from './meili-tasks';
import type { MeiliReadModel } from './meili-read-model';

const COLLECTION = 'formulas';

/** Length of the substrings (in UTF-16 code units) kept in `name_grams` to narrow name filters on the server. */
const GRAM = 3;
const HEAD = '^';
const TAIL = '$';
/** At most this many `name_grams` conditions per query: any subset of necessary conditions still finds every match. */
const MAX_NARROWING_TERMS = 8;
/**
 * 200 UTF-8 bytes of the lower-cased name, below the 468-byte facet limit so the server never cuts the key itself.
 * Every ASCII name (at most 200 characters) fits whole; longer byte strings that share those 200 bytes tie, then id decides.
 */
const SORT_KEY_CHARS = 400;
/** Documents per request when the adapter collects candidates; it keeps requesting until it has all of them. */
/** The owner marker of official formulas: it has letters outside 0-9a-f, so no hex-encoded tenant id can equal it. */
const OFFICIAL = 'official';

const SORT = ['name_sort:asc', 'id:asc'];
// What the in-memory path needs to match and order a formula: never `doc`, which holds code and an icon of up to 1 MiB.
const CANDIDATE_FIELDS = ['id', 'tenant_id', 'name', 'name_sort'];
const DOCUMENT_FIELDS = ['id', 'tenant_id', 'doc'];

/** Every UTF-16 code unit as four hex digits: injective, and prefixes and substrings survive unit for unit. */
const hex16 = (value: string): string => {
  let out = '';
  for (let i = 0; i < value.length; i++) out += value.charCodeAt(i).toString(16).padStart(4, '0');
  return out;
};

/** The sort key: hex of the UTF-8 bytes of the JavaScript-lower-cased name, so its order is the bytes' order. */
export const formulaSortKey = (name: string): string =>
  Buffer.from(name.toLowerCase(), 'utf8').toString('hex').slice(0, SORT_KEY_CHARS);

/**
 * The values of `name_grams`: the lower-cased name's first and last 1..GRAM code units (marked `^` and `$`) and every
 * run of GRAM code units, each hex-encoded. A name matching a filter holds every value formulaNarrowingValues derives.
 */
export function formulaNameGrams(name: string): string[] {
  const lower = name.toLowerCase();
  const grams = new Set<string>();
  for (let k = 1; k <= Math.min(GRAM, lower.length); k++) {
    grams.add(HEAD + hex16(lower.slice(0, k)));
    grams.add(TAIL + hex16(lower.slice(lower.length - k)));
  }
  for (let i = 0; i + GRAM <= lower.length; i++) grams.add(hex16(lower.slice(i, i + GRAM)));
  return [...grams];
}

/**
 * The `name_grams` values every name matching `pattern` (formulaNameMatcher's semantics) must hold: without `*`, the
 * runs of the pattern; with `*`, the runs of each literal part, plus the first part as a head and the last as a tail.
 * Lower-cases the whole pattern at once, as the matcher does, so context-dependent mappings (final sigma) agree.
 */
export function formulaNarrowingValues(pattern: string | null): string[] {
  if (pattern === null || pattern === '') return [];
  const parts = pattern.toLowerCase().split('*');
  const wanted: string[] = [];
  if (parts.length > 1) {
    const head = parts[0];
    const tail = parts[parts.length - 1];
    if (head !== '') wanted.push(HEAD + hex16(head.slice(0, GRAM)));
    if (tail !== '') wanted.push(TAIL + hex16(tail.slice(-GRAM)));
  }
  for (const part of parts) {
    for (let i = 0; i + GRAM <= part.length; i++) wanted.push(hex16(part.slice(i, i + GRAM)));
  }
  return [...new Set(wanted)].slice(0, MAX_NARROWING_TERMS);
}

/** The server-side narrowing of a name filter: elements of `filter`, ANDed; empty when nothing can be narrowed. */
export const formulaNarrowingFilter = (pattern: string | null): string[] =>
  formulaNarrowingValues(pattern).map((value) => `name_grams = ${meiliQuote(value)}`);

const ownerOf = (tenantId: string | null): string => (tenantId === null ? OFFICIAL : hex16(tenantId));

/** Official formulas or the tenant's own. Keep it its own element of `filter`, never concatenated into another one. */
export const formulaVisibilityFilter = (tenantId: string): string =>
  `(owner = ${meiliQuote(OFFICIAL)} OR owner = ${meiliQuote(ownerOf(tenantId))})`;

const tenantOf = (doc: Record<string, unknown>): string | null => (typeof doc.tenant_id === 'string' ? doc.tenant_id : null);
const nameOf = (doc: Record<string, unknown>): string => (typeof doc.name === 'string' ? doc.name : '');

const formulasIndex = meiliDocumentIndex(
  COLLECTION,
  {
    // Kept raw for the exact re-check on what comes back; filters use `owner`.
    tenant_id: tenantOf,
    owner: (d) => ownerOf(tenantOf(d)),
    // Kept raw so formulaNameMatcher runs on exactly the string it is defined on.
    name: nameOf,
    name_sort: (d) => formulaSortKey(nameOf(d)),
  },
  { filterableAttributes: ['owner', 'name_grams', 'id'], sortableAttributes: ['name_sort', 'id'] },
);

// name_grams is an array, which meiliDocumentIndex's scalar fields do not cover: it is added beside them.
export const meiliFormulasCollection: MeiliCollection = {
  ...formulasIndex,
  tenantFilter: (tenantId) => `owner = ${meiliQuote(ownerOf(tenantId))}`,
  toDocument: (id, revision, doc) => ({ ...formulasIndex.toDocument(id, revision, doc), name_grams: formulaNameGrams(nameOf(doc)) }),
};

/** A name filter every name satisfies (none, empty, or only `*`): Meilisearch can then sort and paginate alone. */
const matchesEveryName = (name: string | null): boolean => name === null || /^\**$/.test(name);

// Filters cannot be trusted to be exact (see the top of the file), so every hit is re-checked against raw values.
const visibleTo = (tenantId: string) => (hit: RecordAny): boolean => hit.tenant_id === null || hit.tenant_id === tenantId;

// The order Meilisearch applies for SORT: name_sort and ids are ASCII, which normalization leaves as they are.
const byNameThenId = (a: RecordAny, b: RecordAny): number =>
  compare(a.name_sort as string, b.name_sort as string) || compare(a.id as string, b.id as string);
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const toFormula = (hit: RecordAny): FormulaDocument => meiliFormulasCollection.fromDocument(hit) as unknown as FormulaDocument;

export class MeiliFormulaReadModel implements FormulaReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async get(tenantId: string, id: string): Promise<FormulaDocument | null> {
    const hits = await this.fetchAll([formulaVisibilityFilter(tenantId), `id = ${meiliQuote(id)}`], DOCUMENT_FIELDS);
    // String filters ignore case: keep only the exact id.
    const hit = hits.find((h) => h.id === id && visibleTo(tenantId)(h));
    return hit ? toFormula(hit) : null;
  }

  async list(tenantId: string, { name, page, size }: FormulaListQuery): Promise<Page<FormulaDocument>> {
    if (matchesEveryName(name)) {
      const served = await this.serverPage(tenantId, page, size);
      if (served) return served;
    }
    return this.matchedPage(tenantId, name, page, size);
  }

  /** Meilisearch sorts and paginates; page/hitsPerPage makes totalHits exact (maxTotalHits is raised for every index). */
  private async serverPage(tenantId: string, page: number, size: number): Promise<Page<FormulaDocument> | null> {
    const response = await this.model.index(COLLECTION).search(null, {
      filter: [formulaVisibilityFilter(tenantId)],
      sort: SORT,
      page,
      hitsPerPage: size,
      attributesToRetrieve: DOCUMENT_FIELDS,
    });
    // `owner` is exact by construction, so every hit passes; if one ever did not, the exact path answers rather than
    // a short page with a wrong total.
    if (!response.hits.every(visibleTo(tenantId))) return null;
    return { total: response.totalHits, items: response.hits.map(toFormula) };
  }

  /**
   * Meilisearch has no filter for `*` patterns, so it only narrows (formulaNarrowingFilter yields a superset of the
   * matches); formulaNameMatcher decides, and the page is cut from the matched, ordered list. Candidates are all the
   * formulas visible to the tenant that pass the narrowing: expected in the hundreds at most (official ones plus one
   * tenant's), fetched FETCH_PAGE at a time, all of them, holding only id, tenant, name and sort key.
   */
  private async matchedPage(tenantId: string, name: string | null, page: number, size: number): Promise<Page<FormulaDocument>> {
    const matches = formulaNameMatcher(name);
    const candidates = await this.fetchAll([formulaVisibilityFilter(tenantId), ...formulaNarrowingFilter(name)], CANDIDATE_FIELDS);
    const matched = candidates
      .filter((c) => visibleTo(tenantId)(c) && typeof c.name === 'string' && matches(c.name))
      .sort(byNameThenId);
    const ids = matched.slice((page - 1) * size, page * size).map((c) => c.id as string);
    return { total: matched.length, items: await this.documents(tenantId, ids) };
  }

  /**
   * The full documents of one page, in the page's order. A formula deleted since the candidates were read is left
   * out, as a read a moment later would not have listed it.
   */
  private async documents(tenantId: string, ids: string[]): Promise<FormulaDocument[]> {
    if (ids.length === 0) return [];
    const idIn = `id IN [${ids.map(meiliQuote).join(', ')}]`;
    const hits = await this.fetchAll([formulaVisibilityFilter(tenantId), idIn], DOCUMENT_FIELDS);
    const byId = new Map(hits.filter(visibleTo(tenantId)).map((hit) => [hit.id as string, hit]));
    return ids.flatMap((id) => {
      const hit = byId.get(id);
      return hit ? [toFormula(hit)] : [];
    });
  }

  private fetchAll(filter: string[], fields: string[]): Promise<RecordAny[]> {
    return fetchAll(this.model.index(COLLECTION), filter, fields);
  }
}
