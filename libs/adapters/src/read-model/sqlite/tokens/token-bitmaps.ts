// The embedded search as set algebra. Every token row is a document number (its rowid: AUTOINCREMENT, so numbers
// follow the log and are never reused, which is created_at order up to the few milliseconds concurrent requests
// overlap). Broad posting lists (a tenant's types, creators, and every container, metadata pair or data hash with
// at least BROAD_POSTING tokens) live here as roaring bitmaps; selective ones stay on SQLite's token_terms index and
// turn their few hits into bitmaps when a query needs them. AND, OR and NOT are bitmap operations, a created_at range
// is a range of document numbers, `total_items` is a cardinality and a page is read from the end of the result.
//
// The bitmaps follow the read model through its `token_changes` log (written in the same transaction as the rows, by
// whichever process projects), so this process's own commits and another process's are followed the same way.
import { RoaringBitmap32 } from 'roaring';
import { DATA_SEARCHABLE_TYPES, lowerBound, type QueryNode } from '@vault/domain';
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';

/** A container, metadata pair or data hash with at least this many tokens is kept in memory. */
export const BROAD_POSTING = 128;
const MINUTE = 60_000;
const NONE = -1;

interface TenantSets {
  /** Every token row of the tenant, expired ones included until the sweeper deletes them. */
  all: RoaringBitmap32;
  byType: Map<number, RoaringBitmap32>;
  byCreatedBy: Map<number, RoaringBitmap32>;
  byModifiedBy: Map<number, RoaringBitmap32>;
  /** Rows whose modified_at is set (a modified_at range checks these alone). */
  modified: RoaringBitmap32;
  /** Rows with an expiry, by the minute it falls in. */
  expiring: Map<number, RoaringBitmap32>;
  /** Broad token_terms postings by `field \0 value`. */
  postings: Map<string, RoaringBitmap32>;
  /** The values of the broad container postings, sorted (a `container:"/a/*"` range ORs those inside it). */
  containers: string[];
}

/** One row's columns as the tokens table holds them. */
export interface TokenRowColumns {
  rowid: number;
  tenant_id: string;
  type: string;
  created_by_l: string;
  modified_by_l: string | null;
  created_at_ms: number;
  modified_at_ms: number | null;
  expires_at_ms: number | null;
}

const termKey = (field: string, value: string) => `${field}\u0000${value}`;

/** The smallest string greater than every string that starts with `prefix` (a range scan on an index). */
const prefixUpperBound = (prefix: string): string => prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);

/** Growable per-row columns, indexed by rowid. */
class Columns {
  capacity = 0;
  createdAt = new Float64Array(0);
  /** Max of createdAt over rows 0..i: every row at or before i was created at or before it. */
  prefixMax = new Float64Array(0);
  /** Min of createdAt over rows i..end: every row at or after i was created at or after it. */
  suffixMin = new Float64Array(0);
  modifiedAt = new Float64Array(0);
  expiresAt = new Float64Array(0);
  type = new Int32Array(0);
  createdBy = new Int32Array(0);
  modifiedBy = new Int32Array(0);
  /** Highest rowid with a createdAt (the prefix/suffix arrays are valid up to it). */
  top = -1;

  ensure(rowid: number): void {
    if (rowid < this.capacity) return;
    const capacity = Math.max(1024, Math.ceil((rowid + 1) * 1.5));
    const grow = <T extends Float64Array | Int32Array>(old: T, fill: number): T => {
      const next = new (old.constructor as new (n: number) => T)(capacity);
      next.fill(fill);
      next.set(old);
      return next;
    };
    this.createdAt = grow(this.createdAt, Number.NaN);
    this.prefixMax = grow(this.prefixMax, Number.NEGATIVE_INFINITY);
    this.suffixMin = grow(this.suffixMin, Number.POSITIVE_INFINITY);
    this.modifiedAt = grow(this.modifiedAt, Number.NaN);
    this.expiresAt = grow(this.expiresAt, Number.NaN);
    this.type = grow(this.type, NONE);
    this.createdBy = grow(this.createdBy, NONE);
    this.modifiedBy = grow(this.modifiedBy, NONE);
    this.capacity = capacity;
  }

  /** Records a row's creation time and keeps the prefix maxima and suffix minima exact. */
  setCreatedAt(rowid: number, at: number): void {
    const known = this.createdAt[rowid];
    if (known === at) return;
    this.createdAt[rowid] = at;
    if (!Number.isNaN(known) || rowid < this.top) {
      // Out of log order (rows are appended in rowid order): rare, so the arrays are recomputed.
      this.top = Math.max(this.top, rowid);
      this.recompute();
      return;
    }
    // Rows between top and rowid are unused (an upsert that updated still takes an AUTOINCREMENT number, deletes).
    const before = this.top >= 0 ? this.prefixMax[this.top] : Number.NEGATIVE_INFINITY;
    for (let i = this.top + 1; i < rowid; i++) this.prefixMax[i] = before;
    this.prefixMax[rowid] = Math.max(before, at);
    this.suffixMin[rowid] = at;
    for (let i = rowid - 1; i >= 0 && this.suffixMin[i] > at; i--) this.suffixMin[i] = at;
    this.top = rowid;
  }

  recompute(): void {
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i <= this.top; i++) {
      const at = this.createdAt[i];
      if (at > max) max = at;
      this.prefixMax[i] = max;
    }
    let min = Number.POSITIVE_INFINITY;
    for (let i = this.top; i >= 0; i--) {
      const at = this.createdAt[i];
      if (at < min) min = at;
      this.suffixMin[i] = min;
    }
  }
}

/** Interned strings (types, actor ids), so rows keep a number. */
class Strings {
  private readonly codes = new Map<string, number>();
  private readonly values: string[] = [];
  code(value: string): number {
    let code = this.codes.get(value);
    if (code === undefined) {
      this.codes.set(value, (code = this.values.length));
      this.values.push(value);
    }
    return code;
  }
  value(code: number): string {
    return this.values[code];
  }
  known(value: string): number {
    return this.codes.get(value) ?? NONE;
  }
}

/** Lookups of selective postings and single rows in SQLite. */
export interface PostingSource {
  /** Rowids of one token_terms posting. */
  posting(tenantId: string, field: string, value: string): number[];
  /** Rowids of container postings in [from, to), skipping the values `skip` (sorted, all inside the range). */
  containerRange(tenantId: string, from: string, to: string, skip: readonly string[]): number[];
  /** How many rows a posting has, counting up to `limit`. */
  postingSize(tenantId: string, field: string, value: string, limit: number): number;
  byId(tenantId: string, id: string): number[];
  byFingerprint(tenantId: string, fingerprint: string): number[];
}

/** Rowids or times as the build reads them: an array, or a typed array from the worker thread. */
export type Numbers = ArrayLike<number> & Iterable<number>;

export class TokenBitmaps {
  private readonly tenants = new Map<string, TenantSets>();
  private readonly columns = new Columns();
  private readonly strings = new Strings();

  constructor(
    private readonly source: PostingSource,
    /** Postings with at least this many tokens are kept in memory (tests set 1 to keep every one). */
    private readonly broadPosting = BROAD_POSTING,
    /**
     * Told when a posting grew broad and is now kept in memory (`broad`), or lost its last token (`empty`): the
     * follower records both in broad_terms, so that the list names no value no token holds any more.
     */
    private readonly onPosting: (change: 'broad' | 'empty', tenantId: string, field: string, value: string) => void = () => undefined,
  ) {}

  /** Makes room for rows up to `rowid` (the build, before loading groups). */
  reserve(rowid: number): void {
    this.columns.ensure(rowid);
  }

  /** Loads rows that share tenant, type and creator (the build): their rowids and creation times, in any order. */
  loadGroup(tenantId: string, type: string, createdBy: string, rowids: Numbers, createdAt: Numbers): void {
    const c = this.columns;
    const typeCode = this.strings.code(type);
    const creator = this.strings.code(createdBy);
    for (let i = 0; i < rowids.length; i++) {
      const r = rowids[i];
      c.createdAt[r] = createdAt[i];
      c.type[r] = typeCode;
      c.createdBy[r] = creator;
      if (r > c.top) c.top = r;
    }
    const rows = new RoaringBitmap32(rowids);
    const sets = this.tenant(tenantId);
    sets.all.orInPlace(rows);
    orInto(sets.byType, typeCode, rows);
    orInto(sets.byCreatedBy, creator, rows);
  }

  /** Loads a modified row's modifier and time (the build). */
  loadModified(tenantId: string, rowid: number, modifiedBy: string, modifiedAt: number): void {
    const sets = this.tenant(tenantId);
    this.columns.modifiedBy[rowid] = this.strings.code(modifiedBy);
    addTo(sets.byModifiedBy, this.columns.modifiedBy[rowid], rowid);
    this.columns.modifiedAt[rowid] = modifiedAt;
    sets.modified.add(rowid);
  }

  /** Loads a row's expiry (the build). */
  loadExpiry(tenantId: string, rowid: number, expiresAt: number): void {
    this.columns.expiresAt[rowid] = expiresAt;
    addTo(this.tenant(tenantId).expiring, Math.floor(expiresAt / MINUTE), rowid);
  }

  /** Ends the build: the prefix maxima and suffix minima from every row's creation time, bitmaps compacted. */
  finishLoad(): void {
    this.columns.recompute();
    for (const sets of this.tenants.values()) {
      sets.all.runOptimize();
      for (const map of [sets.byType, sets.byCreatedBy, sets.postings]) for (const bitmap of map.values()) bitmap.runOptimize();
    }
  }

  private tenant(tenantId: string): TenantSets {
    let sets = this.tenants.get(tenantId);
    if (!sets) {
      sets = {
        all: new RoaringBitmap32(),
        byType: new Map(),
        byCreatedBy: new Map(),
        byModifiedBy: new Map(),
        modified: new RoaringBitmap32(),
        expiring: new Map(),
        postings: new Map(),
        containers: [],
      };
      this.tenants.set(tenantId, sets);
    }
    return sets;
  }

  dropTenant(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  /** Adds a row (or the row's current state, after `removeRow`). `terms` are its token_terms (field, value). */
  addRow(row: TokenRowColumns, terms: ReadonlyArray<readonly [string, string]>): void {
    const c = this.columns;
    const r = row.rowid;
    c.ensure(r);
    const sets = this.tenant(row.tenant_id);
    sets.all.add(r);
    c.setCreatedAt(r, row.created_at_ms);
    c.type[r] = this.strings.code(row.type);
    addTo(sets.byType, c.type[r], r);
    c.createdBy[r] = this.strings.code(row.created_by_l);
    addTo(sets.byCreatedBy, c.createdBy[r], r);
    if (row.modified_by_l !== null) {
      c.modifiedBy[r] = this.strings.code(row.modified_by_l);
      addTo(sets.byModifiedBy, c.modifiedBy[r], r);
    }
    if (row.modified_at_ms !== null) {
      c.modifiedAt[r] = row.modified_at_ms;
      sets.modified.add(r);
    }
    if (row.expires_at_ms !== null) {
      c.expiresAt[r] = row.expires_at_ms;
      addTo(sets.expiring, Math.floor(row.expires_at_ms / MINUTE), r);
    }
    for (const [field, value] of terms) {
      const key = termKey(field, value);
      const posting = sets.postings.get(key);
      if (posting) posting.add(r);
      else if (this.source.postingSize(row.tenant_id, field, value, this.broadPosting) >= this.broadPosting) this.promote(row.tenant_id, sets, field, value);
    }
  }

  /** Adds a broad posting whole (the build, which knows every member). */
  addPosting(tenantId: string, field: string, value: string, rowids: Numbers): void {
    const sets = this.tenant(tenantId);
    const bitmap = new RoaringBitmap32(rowids);
    bitmap.runOptimize();
    sets.postings.set(termKey(field, value), bitmap);
    if (field === 'container') insertSorted(sets.containers, value);
  }

  private promote(tenantId: string, sets: TenantSets, field: string, value: string): void {
    const bitmap = new RoaringBitmap32(this.source.posting(tenantId, field, value));
    sets.postings.set(termKey(field, value), bitmap);
    if (field === 'container') insertSorted(sets.containers, value);
    this.onPosting('broad', tenantId, field, value);
  }

  /** Takes a row out of every set of its tenant (the change log says which row changed, not what it held). */
  removeRow(tenantId: string, rowid: number): void {
    const sets = this.tenants.get(tenantId);
    const c = this.columns;
    if (!sets || rowid >= c.capacity) return;
    sets.all.remove(rowid);
    removeFrom(sets.byType, c.type[rowid], rowid);
    removeFrom(sets.byCreatedBy, c.createdBy[rowid], rowid);
    removeFrom(sets.byModifiedBy, c.modifiedBy[rowid], rowid);
    c.modifiedBy[rowid] = NONE;
    sets.modified.remove(rowid);
    c.modifiedAt[rowid] = Number.NaN;
    if (!Number.isNaN(c.expiresAt[rowid])) removeFrom(sets.expiring, Math.floor(c.expiresAt[rowid] / MINUTE), rowid);
    c.expiresAt[rowid] = Number.NaN;
    for (const [key, posting] of sets.postings) {
      if (!posting.delete(rowid) || !posting.isEmpty) continue;
      sets.postings.delete(key);
      const [field, value] = key.split('\u0000');
      if (field === 'container') removeSorted(sets.containers, value);
      this.onPosting('empty', tenantId, field, value);
    }
  }

  /** The tenant's tokens that have not expired at `now` (shared: never change it in place). */
  universe(tenantId: string, now: number): RoaringBitmap32 {
    const sets = this.tenants.get(tenantId);
    if (!sets) return EMPTY;
    if (sets.expiring.size === 0) return sets.all;
    const current = Math.floor(now / MINUTE);
    const expired: RoaringBitmap32[] = [];
    for (const [minute, rows] of sets.expiring) {
      if (minute < current) expired.push(rows);
      else if (minute === current) expired.push(new RoaringBitmap32(rows.filter((r) => this.columns.expiresAt[r] <= now)));
    }
    return expired.length === 0 ? sets.all : RoaringBitmap32.andNot(sets.all, RoaringBitmap32.orMany(expired));
  }

  /** The rows matching `query` among the tenant's live tokens at `now` (may be shared: never change it in place). */
  evaluate(tenantId: string, query: QueryNode | null, now: number): RoaringBitmap32 {
    const universe = this.universe(tenantId, now);
    if (query === null) return universe;
    const result = this.node(tenantId, this.tenants.get(tenantId), query, universe);
    return result === universe ? result : RoaringBitmap32.and(result, universe);
  }

  private node(tenantId: string, sets: TenantSets | undefined, node: QueryNode, universe: RoaringBitmap32): RoaringBitmap32 {
    switch (node.kind) {
      case 'and': {
        const positives = node.children.filter((child) => child.kind !== 'not');
        const negatives = node.children.filter((child): child is Extract<QueryNode, { kind: 'not' }> => child.kind === 'not');
        let result = positives.length === 0 ? universe.clone() : this.node(tenantId, sets, positives[0], universe).clone();
        for (const child of positives.slice(1)) {
          if (result.isEmpty) return result;
          result.andInPlace(this.node(tenantId, sets, child, universe));
        }
        for (const child of negatives) {
          if (result.isEmpty) return result;
          result.andNotInPlace(this.node(tenantId, sets, child.child, universe));
        }
        return result;
      }
      case 'or':
        return RoaringBitmap32.orMany(node.children.map((child) => this.node(tenantId, sets, child, universe)));
      case 'not':
        return RoaringBitmap32.andNot(universe, this.node(tenantId, sets, node.child, universe));
      case 'term':
        switch (node.field) {
          case 'id':
            return new RoaringBitmap32(this.source.byId(tenantId, node.value));
          case 'fingerprint':
            return new RoaringBitmap32(this.source.byFingerprint(tenantId, node.value));
          case 'type':
            return sets?.byType.get(this.strings.known(node.value)) ?? EMPTY;
          case 'created_by':
            return sets?.byCreatedBy.get(this.strings.known(node.value)) ?? EMPTY;
          case 'modified_by':
            return sets?.byModifiedBy.get(this.strings.known(node.value)) ?? EMPTY;
        }
        break;
      case 'container':
        if (!node.descendants) return this.posting(tenantId, sets, 'container', node.path);
        // Every token has at least one container and every container starts with '/'.
        if (node.path === '/') return universe;
        return this.containerRange(tenantId, sets, node.path, prefixUpperBound(node.path));
      case 'metadata':
        return this.posting(tenantId, sets, `metadata.${node.key}`, node.value);
      case 'data': {
        const searchable = RoaringBitmap32.orMany(DATA_SEARCHABLE_TYPES.map((type) => sets?.byType.get(this.strings.known(type)) ?? EMPTY));
        return RoaringBitmap32.and(this.posting(tenantId, sets, 'data', node.value), searchable);
      }
      case 'date':
        if (node.gte !== null && node.lt !== null && node.gte >= node.lt) return EMPTY;
        return node.field === 'created_at' ? this.createdBetween(node.gte, node.lt) : this.modifiedBetween(sets, node.gte, node.lt);
    }
    throw new Error(`Unknown query node ${(node as { kind: string }).kind}`);
  }

  private posting(tenantId: string, sets: TenantSets | undefined, field: string, value: string): RoaringBitmap32 {
    return sets?.postings.get(termKey(field, value)) ?? new RoaringBitmap32(this.source.posting(tenantId, field, value));
  }

  /** Broad container postings in [from, to) from memory, the selective ones between them from SQLite. */
  private containerRange(tenantId: string, sets: TenantSets | undefined, from: string, to: string): RoaringBitmap32 {
    const broad = sets ? sets.containers.slice(lowerBound(sets.containers, from), lowerBound(sets.containers, to)) : [];
    const parts = broad.map((value) => sets!.postings.get(termKey('container', value))!);
    parts.push(new RoaringBitmap32(this.source.containerRange(tenantId, from, to, broad)));
    return RoaringBitmap32.orMany(parts);
  }

  /**
   * Rows created in [gte, lt). Rows before the first whose prefix maximum reaches `gte` are all older; rows from the
   * first whose suffix minimum reaches it are all newer; the few in between (created out of rowid order by
   * concurrent requests) are checked one by one. The same for `lt`. Rows of other tenants or deleted ones may be in
   * the result: the caller intersects it with the tenant's universe.
   */
  private createdBetween(gte: number | null, lt: number | null): RoaringBitmap32 {
    const c = this.columns;
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

  private modifiedBetween(sets: TenantSets | undefined, gte: number | null, lt: number | null): RoaringBitmap32 {
    if (!sets) return EMPTY;
    const at = this.columns.modifiedAt;
    const rows = sets.modified.toUint32Array();
    const hits: number[] = [];
    for (const r of rows) {
      const t = at[r];
      if ((gte === null || t >= gte) && (lt === null || t < lt)) hits.push(r);
    }
    return new RoaringBitmap32(hits);
  }

  /**
   * The rowids of a result's page in the search order (created_at descending, then id): a window of the result in
   * rowid order around where the page must be, widened until no row outside it can sort inside it (every row before
   * the window was created strictly before every row in it, and every row after it strictly after). `idsOf` gives
   * the window's rows' ids and creation times for the exact order inside the window.
   */
  page(
    result: RoaringBitmap32,
    offset: number,
    size: number,
    rowsOf: (rowids: number[]) => Array<{ rowid: number; id: string; created_at_ms: number }>,
  ): number[] {
    const total = result.size;
    if (offset >= total || size <= 0) return [];
    const c = this.columns;
    // Newest first: sort position p is about rank total-1-p in rowid order.
    let hiRank = total - 1 - offset;
    let loRank = Math.max(0, total - offset - size);
    let lo = result.select(loRank)!;
    let hi = result.select(hiRank)!;
    const clean = (before: number, after: number) => c.prefixMax[before] < c.suffixMin[after];
    while (loRank > 0) {
      const previous = result.select(loRank - 1)!;
      if (clean(previous, lo)) break;
      loRank -= 1;
      lo = previous;
    }
    while (hiRank < total - 1) {
      const next = result.select(hiRank + 1)!;
      if (clean(hi, next)) break;
      hiRank += 1;
      hi = next;
    }
    // rangeUint32Array(offset, limit) reads by rank.
    const window = Array.from(result.rangeUint32Array(loRank, hiRank - loRank + 1));
    const rows = rowsOf(window).sort((a, b) => b.created_at_ms - a.created_at_ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    // The window holds sort positions [total-1-hiRank, total-1-loRank].
    const first = offset - (total - 1 - hiRank);
    return rows.slice(first, first + size).map((row) => row.rowid);
  }

  /** Live tokens of every tenant by type (the metrics gauge): one cardinality per tenant and type. */
  countByType(now: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const tenantId of this.tenants.keys()) {
      const universe = this.universe(tenantId, now);
      for (const [code, rows] of this.tenants.get(tenantId)!.byType) {
        const n = rows.andCardinality(universe);
        if (n > 0) counts[this.strings.value(code)] = (counts[this.strings.value(code)] ?? 0) + n;
      }
    }
    return counts;
  }
}

const EMPTY = new RoaringBitmap32().freeze();

function addTo<K>(map: Map<K, RoaringBitmap32>, key: K, rowid: number): void {
  let bitmap = map.get(key);
  if (!bitmap) map.set(key, (bitmap = new RoaringBitmap32()));
  bitmap.add(rowid);
}

function orInto<K>(map: Map<K, RoaringBitmap32>, key: K, rows: RoaringBitmap32): void {
  const bitmap = map.get(key);
  if (bitmap) bitmap.orInPlace(rows);
  else map.set(key, rows.clone());
}

function removeFrom<K>(map: Map<K, RoaringBitmap32>, key: K, rowid: number): void {
  const bitmap = map.get(key);
  if (!bitmap) return;
  bitmap.remove(rowid);
  if (bitmap.isEmpty) map.delete(key);
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

function insertSorted(sorted: string[], value: string): void {
  const at = lowerBound(sorted, value);
  if (sorted[at] !== value) sorted.splice(at, 0, value);
}

function removeSorted(sorted: string[], value: string): void {
  const at = lowerBound(sorted, value);
  if (sorted[at] === value) sorted.splice(at, 1);
}

/** The SQLite side: selective postings and single rows, through the read model's indexes. */
export function sqlitePostings(db: () => SqliteDatabase): PostingSource {
  return {
    posting: (tenantId, field, value) =>
      statement(db(), 'SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ?').pluck().all(tenantId, field, value) as number[],
    containerRange: (tenantId, from, to, skip) => {
      // The gaps between the broad values: an index range each, so no broad posting's rows are read.
      const bounds = [from, ...skip.flatMap((value) => [value, value + '\u0000']), to];
      const rows: number[] = [];
      const sql = "SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = 'container' AND value >= ? AND value < ?";
      for (let i = 0; i < bounds.length; i += 2) {
        if (bounds[i] < bounds[i + 1]) rows.push(...(statement(db(), sql).pluck().all(tenantId, bounds[i], bounds[i + 1]) as number[]));
      }
      return rows;
    },
    postingSize: (tenantId, field, value, limit) =>
      statement(db(), 'SELECT COUNT(*) FROM (SELECT 1 FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ? LIMIT ?)')
        .pluck()
        .get(tenantId, field, value, limit) as number,
    byId: (tenantId, id) => statement(db(), 'SELECT rowid FROM tokens WHERE tenant_id = ? AND id = ?').pluck().all(tenantId, id) as number[],
    byFingerprint: (tenantId, fingerprint) =>
      statement(db(), 'SELECT rowid FROM tokens WHERE tenant_id = ? AND fingerprint = ?').pluck().all(tenantId, fingerprint) as number[],
  };
}
