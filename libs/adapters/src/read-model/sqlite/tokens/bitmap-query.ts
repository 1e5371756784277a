// The query interpreter of the search bitmaps: AND, OR and NOT as bitmap operations over one tenant's rows, each term a
// bitmap from memory (grouped fields, broad postings, creation and modification times) or from SQLite's indexes.
import { RoaringBitmap32 } from 'roaring';
import { DATA_SEARCHABLE_TYPES, lowerBound, type DateField, type QueryNode, type TermField } from '@vault/domain';
import { EMPTY, GROUPED_FIELDS, postingKey, type GroupedField, type TenantSets } from './bitmap-sets';
import type { PostingSource } from './posting-source';
import type { RowColumns, Strings } from './row-columns';
import { FIELD_COLUMNS, postingFieldOf } from './token-row';

/** What the interpreter reads of the bitmaps' storage (TokenBitmaps). */
export interface BitmapStore {
  readonly source: PostingSource;
  readonly columns: RowColumns;
  readonly strings: Strings;
  setsOf(tenantId: string): TenantSets | undefined;
}

/** One evaluation: the tenant, its sets (none before its first token) and its live rows. */
interface Scope {
  store: BitmapStore;
  tenantId: string;
  sets: TenantSets | undefined;
  universe: RoaringBitmap32;
}

/**
 * The rows matching `query` among the tenant's live rows `universe`. The result may hold rows outside `universe` (the
 * caller intersects) and may be a shared bitmap, `universe` itself included: never change it in place.
 */
export function rowsMatching(store: BitmapStore, tenantId: string, query: QueryNode, universe: RoaringBitmap32): RoaringBitmap32 {
  return rowsOf({ store, tenantId, sets: store.setsOf(tenantId), universe }, query);
}

function rowsOf(scope: Scope, node: QueryNode): RoaringBitmap32 {
  switch (node.kind) {
    case 'and': {
      const positives = node.children.filter((child) => child.kind !== 'not');
      const negatives = node.children.filter((child): child is Extract<QueryNode, { kind: 'not' }> => child.kind === 'not');
      const result = positives.length === 0 ? scope.universe.clone() : rowsOf(scope, positives[0]).clone();
      for (const child of positives.slice(1)) {
        if (result.isEmpty) return result;
        result.andInPlace(rowsOf(scope, child));
      }
      for (const child of negatives) {
        if (result.isEmpty) return result;
        result.andNotInPlace(rowsOf(scope, child.child));
      }
      return result;
    }
    case 'or':
      return RoaringBitmap32.orMany(node.children.map((child) => rowsOf(scope, child)));
    case 'not':
      return RoaringBitmap32.andNot(scope.universe, rowsOf(scope, node.child));
    case 'term':
      return isGrouped(node.field)
        ? grouped(scope, node.field, node.value)
        : new RoaringBitmap32(scope.store.source.byColumn(scope.tenantId, FIELD_COLUMNS[node.field], node.value));
    case 'container':
      if (!node.descendants) return posting(scope, postingFieldOf.container(), node.path);
      // Every token has at least one container and every container starts with '/'.
      if (node.path === '/') return scope.universe;
      return containerRange(scope, node.path, prefixUpperBound(node.path));
    case 'metadata':
      return posting(scope, postingFieldOf.metadata(node.key), node.value);
    case 'data': {
      const searchable = RoaringBitmap32.orMany(DATA_SEARCHABLE_TYPES.map((type) => grouped(scope, 'type', type)));
      return RoaringBitmap32.and(posting(scope, postingFieldOf.data(), node.value), searchable);
    }
    case 'date':
      if (node.gte !== null && node.lt !== null && node.gte >= node.lt) return EMPTY;
      return DATE_RANGES[node.field](scope, node.gte, node.lt);
  }
}

const isGrouped = (field: TermField): field is GroupedField => (GROUPED_FIELDS as readonly TermField[]).includes(field);

const grouped = (scope: Scope, field: GroupedField, value: string): RoaringBitmap32 =>
  scope.sets?.grouped[field].get(scope.store.strings.known(value)) ?? EMPTY;

function posting(scope: Scope, field: string, value: string): RoaringBitmap32 {
  return scope.sets?.postings.get(postingKey(field, value)) ?? new RoaringBitmap32(scope.store.source.posting(scope.tenantId, field, value));
}

/** Broad container postings in [from, to) from memory, the selective ones between them from SQLite. */
function containerRange({ store, tenantId, sets }: Scope, from: string, to: string): RoaringBitmap32 {
  const broad = sets ? sets.containers.slice(lowerBound(sets.containers, from), lowerBound(sets.containers, to)) : [];
  const parts = broad.map((value) => sets!.postings.get(postingKey(postingFieldOf.container(), value))!);
  parts.push(new RoaringBitmap32(store.source.containerRange(tenantId, from, to, broad)));
  return RoaringBitmap32.orMany(parts);
}

/** The smallest string greater than every string that starts with `prefix` (a range scan on an index). */
const prefixUpperBound = (prefix: string): string => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** The rows of a [gte, lt) range of each date field; `null` leaves that side open. */
const DATE_RANGES: { readonly [F in DateField]: (scope: Scope, gte: number | null, lt: number | null) => RoaringBitmap32 } = {
  created_at: (scope, gte, lt) => createdBetween(scope.store.columns, gte, lt),
  modified_at: modifiedBetween,
};

/**
 * Rows created in [gte, lt). Rows before the first whose prefix maximum reaches `gte` are all older; rows from the
 * first whose suffix minimum reaches it are all newer; the few in between (created out of rowid order by
 * concurrent requests) are checked one by one. The same for `lt`. Rows of other tenants or deleted ones may be in
 * the result: the caller intersects it with the tenant's universe.
 */
function createdBetween(c: RowColumns, gte: number | null, lt: number | null): RoaringBitmap32 {
  const end = c.top + 1;
  const result = new RoaringBitmap32();
  if (end === 0) return result;
  // Rows [lo, hi) surely match; rows in the bands [loBand, lo) and [hi, hiBand) are checked one by one.
  const lo = gte === null ? 0 : firstIndex(c.suffixMin, end, (v) => v >= gte);
  const loBand = gte === null ? 0 : firstIndex(c.prefixMax, end, (v) => v >= gte);
  const hi = lt === null ? end : firstIndex(c.prefixMax, end, (v) => v >= lt);
  const hiBand = lt === null ? end : firstIndex(c.suffixMin, end, (v) => v >= lt);
  if (lo < hi) result.addRange(lo, hi);
  const matches = (r: number) => {
    const at = c.createdAt[r];
    return !Number.isNaN(at) && (gte === null || at >= gte) && (lt === null || at < lt);
  };
  // Everything in [loBand, hiBand) outside [lo, hi) is checked.
  for (let r = loBand; r < Math.min(lo, hiBand); r++) if (matches(r)) result.add(r);
  for (let r = Math.max(loBand, lo < hi ? hi : lo); r < hiBand; r++) if (matches(r)) result.add(r);
  return result;
}

function modifiedBetween({ store, sets }: Scope, gte: number | null, lt: number | null): RoaringBitmap32 {
  if (!sets) return EMPTY;
  const at = store.columns.modifiedAt;
  const hits: number[] = [];
  for (const r of sets.modified.toUint32Array()) {
    const t = at[r];
    if ((gte === null || t >= gte) && (lt === null || t < lt)) hits.push(r);
  }
  return new RoaringBitmap32(hits);
}

/** The first index in [0, end) whose value satisfies `ok`, for a monotone `ok` (false…false true…true); `end` if none. */
function firstIndex(values: Float64Array, end: number, ok: (value: number) => boolean): number {
  let lo = 0;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ok(values[mid])) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
