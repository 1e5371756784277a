// The bitmaps of one tenant, and the small operations on maps of bitmaps the storage and the query share.
import { RoaringBitmap32 } from 'roaring';
import { lowerBound, type TermField } from '@vault/domain';

/**
 * The term fields kept in memory as one bitmap per value: few values, each shared by many tokens. Every other term
 * field (ids, fingerprints: about one token per value) is looked up in the tokens table's index instead.
 */
export const GROUPED_FIELDS = ['type', 'created_by', 'modified_by'] as const satisfies readonly TermField[];
export type GroupedField = (typeof GROUPED_FIELDS)[number];

export interface TenantSets {
  /** Every token row of the tenant, expired ones included until the sweeper deletes them. */
  all: RoaringBitmap32;
  /** The rows of each value of each grouped field, by the value's interned code. */
  grouped: Record<GroupedField, Map<number, RoaringBitmap32>>;
  /** Rows whose modified_at is set (a modified_at range checks these alone). */
  modified: RoaringBitmap32;
  /** Rows with an expiry, by the minute it falls in. */
  expiring: Map<number, RoaringBitmap32>;
  /** Broad token_terms postings by `field \0 value`. */
  postings: Map<string, RoaringBitmap32>;
  /** The values of the broad container postings, sorted (a `container:"/a/*"` range ORs those inside it). */
  containers: string[];
}

export const newTenantSets = (): TenantSets => ({
  all: new RoaringBitmap32(),
  grouped: { type: new Map(), created_by: new Map(), modified_by: new Map() },
  modified: new RoaringBitmap32(),
  expiring: new Map(),
  postings: new Map(),
  containers: [],
});

export const MINUTE = 60_000;

/** The empty result, shared: never changed in place. */
export const EMPTY = new RoaringBitmap32().freeze();

export const postingKey = (field: string, value: string): string => `${field}\u0000${value}`;

export function addTo<K>(map: Map<K, RoaringBitmap32>, key: K, rowid: number): void {
  let bitmap = map.get(key);
  if (!bitmap) map.set(key, (bitmap = new RoaringBitmap32()));
  bitmap.add(rowid);
}

export function orInto<K>(map: Map<K, RoaringBitmap32>, key: K, rows: RoaringBitmap32): void {
  const bitmap = map.get(key);
  if (bitmap) bitmap.orInPlace(rows);
  else map.set(key, rows.clone());
}

export function removeFrom<K>(map: Map<K, RoaringBitmap32>, key: K, rowid: number): void {
  const bitmap = map.get(key);
  if (!bitmap) return;
  bitmap.remove(rowid);
  if (bitmap.isEmpty) map.delete(key);
}

export function insertSorted(sorted: string[], value: string): void {
  const at = lowerBound(sorted, value);
  if (sorted[at] !== value) sorted.splice(at, 0, value);
}

export function removeSorted(sorted: string[], value: string): void {
  const at = lowerBound(sorted, value);
  if (sorted[at] === value) sorted.splice(at, 1);
}
