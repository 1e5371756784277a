// The embedded search as set algebra. Every token row is a document number (its rowid: AUTOINCREMENT, so numbers
// follow the log and are never reused, which is created_at order up to the few milliseconds concurrent requests
// overlap). Broad posting lists (a tenant's types, creators, and every container, metadata pair or data hash with
// at least BROAD_POSTING tokens) live here as roaring bitmaps; selective ones stay on SQLite's token_terms index and
// turn their few hits into bitmaps when a query needs them. AND, OR and NOT are bitmap operations (bitmap-query.ts), a
// created_at range is a range of document numbers, `total_items` is a cardinality and a page is read from the end of
// the result (bitmap-paging.ts).
//
// The bitmaps follow the read model through its `token_changes` log (token-bitmap-follower.ts), so this process's own
// commits and another process's are followed the same way.
import { RoaringBitmap32 } from 'roaring';
import type { QueryNode, TokenTerms } from '@vault/domain';
import { BROAD_POSTING } from './broad-terms';
import { pageOf, type WindowRow } from './bitmap-paging';
import { rowsMatching, type BitmapStore } from './bitmap-query';
import {
  addTo,
  EMPTY,
  GROUPED_FIELDS,
  insertSorted,
  MINUTE,
  newTenantSets,
  orInto,
  postingKey,
  removeFrom,
  removeSorted,
  type GroupedField,
  type TenantSets,
} from './bitmap-sets';
import type { PostingSource } from './posting-source';
import { NONE, RowColumns, Strings } from './row-columns';
import { postingFieldOf } from './token-row';

/** The term and date fields the bitmaps hold for each row, read from the row's columns (FIELD_COLUMNS). */
export const ROW_FIELDS = [...GROUPED_FIELDS, 'created_at', 'modified_at'] as const;

/** One token row as the bitmaps take it: its number, tenant and expiry, and its terms of ROW_FIELDS. */
export interface BitmapRow {
  rowid: number;
  tenant_id: string;
  expires_at_ms: number | null;
  terms: Pick<TokenTerms, (typeof ROW_FIELDS)[number]>;
}

/** Rowids or times as the build reads them: an array, or a typed array from the worker thread. */
export type Numbers = ArrayLike<number> & Iterable<number>;

export class TokenBitmaps {
  private readonly tenants = new Map<string, TenantSets>();
  private readonly columns = new RowColumns();
  private readonly strings = new Strings();
  private readonly store: BitmapStore;

  constructor(
    private readonly source: PostingSource,
    /** Postings with at least this many tokens are kept in memory (tests set 1 to keep every one). */
    private readonly broadPosting = BROAD_POSTING,
    /**
     * Told when a posting grew broad and is now kept in memory (`broad`), or lost its last token (`empty`): the
     * follower records both in broad_terms, so that the list names no value no token holds any more.
     */
    private readonly onPosting: (change: 'broad' | 'empty', tenantId: string, field: string, value: string) => void = () => undefined,
  ) {
    this.store = { source, columns: this.columns, strings: this.strings, setsOf: (tenantId) => this.tenants.get(tenantId) };
  }

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
      c.codes.type[r] = typeCode;
      c.codes.created_by[r] = creator;
      if (r > c.top) c.top = r;
    }
    const rows = new RoaringBitmap32(rowids);
    const sets = this.tenant(tenantId);
    sets.all.orInPlace(rows);
    orInto(sets.grouped.type, typeCode, rows);
    orInto(sets.grouped.created_by, creator, rows);
  }

  /** Loads a modified row's modifier and time (the build). */
  loadModified(tenantId: string, rowid: number, modifiedBy: string, modifiedAt: number): void {
    const sets = this.tenant(tenantId);
    this.group(sets, 'modified_by', rowid, modifiedBy);
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
      for (const map of [sets.grouped.type, sets.grouped.created_by, sets.postings]) for (const bitmap of map.values()) bitmap.runOptimize();
    }
  }

  private tenant(tenantId: string): TenantSets {
    let sets = this.tenants.get(tenantId);
    if (!sets) this.tenants.set(tenantId, (sets = newTenantSets()));
    return sets;
  }

  /** Puts a row into the set of its value of a grouped field. */
  private group(sets: TenantSets, field: GroupedField, rowid: number, value: string): void {
    const code = this.strings.code(value);
    this.columns.codes[field][rowid] = code;
    addTo(sets.grouped[field], code, rowid);
  }

  dropTenant(tenantId: string): void {
    this.tenants.delete(tenantId);
  }

  /** Adds a row (or the row's current state, after `removeRow`). `postings` are its token_terms (field, value). */
  addRow(row: BitmapRow, postings: ReadonlyArray<readonly [string, string]>): void {
    const c = this.columns;
    const r = row.rowid;
    c.ensure(r);
    const sets = this.tenant(row.tenant_id);
    sets.all.add(r);
    // created_at is never unset: its column is NOT NULL.
    c.setCreatedAt(r, row.terms.created_at!);
    for (const field of GROUPED_FIELDS) {
      const value = row.terms[field];
      if (value !== null) this.group(sets, field, r, value);
    }
    if (row.terms.modified_at !== null) {
      c.modifiedAt[r] = row.terms.modified_at;
      sets.modified.add(r);
    }
    if (row.expires_at_ms !== null) {
      c.expiresAt[r] = row.expires_at_ms;
      addTo(sets.expiring, Math.floor(row.expires_at_ms / MINUTE), r);
    }
    for (const [field, value] of postings) {
      const posting = sets.postings.get(postingKey(field, value));
      if (posting) posting.add(r);
      else if (this.source.postingSize(row.tenant_id, field, value, this.broadPosting) >= this.broadPosting) this.promote(row.tenant_id, sets, field, value);
    }
  }

  /** Adds a broad posting whole (the build, which knows every member). */
  addPosting(tenantId: string, field: string, value: string, rowids: Numbers): void {
    const sets = this.tenant(tenantId);
    const bitmap = new RoaringBitmap32(rowids);
    bitmap.runOptimize();
    sets.postings.set(postingKey(field, value), bitmap);
    if (field === postingFieldOf.container()) insertSorted(sets.containers, value);
  }

  private promote(tenantId: string, sets: TenantSets, field: string, value: string): void {
    const bitmap = new RoaringBitmap32(this.source.posting(tenantId, field, value));
    sets.postings.set(postingKey(field, value), bitmap);
    if (field === postingFieldOf.container()) insertSorted(sets.containers, value);
    this.onPosting('broad', tenantId, field, value);
  }

  /** Takes a row out of every set of its tenant (the change log says which row changed, not what it held). */
  removeRow(tenantId: string, rowid: number): void {
    const sets = this.tenants.get(tenantId);
    const c = this.columns;
    if (!sets || rowid >= c.capacity) return;
    sets.all.remove(rowid);
    for (const field of GROUPED_FIELDS) {
      removeFrom(sets.grouped[field], c.codes[field][rowid], rowid);
      c.codes[field][rowid] = NONE;
    }
    sets.modified.remove(rowid);
    c.modifiedAt[rowid] = Number.NaN;
    if (!Number.isNaN(c.expiresAt[rowid])) removeFrom(sets.expiring, Math.floor(c.expiresAt[rowid] / MINUTE), rowid);
    c.expiresAt[rowid] = Number.NaN;
    for (const [key, posting] of sets.postings) {
      if (!posting.delete(rowid) || !posting.isEmpty) continue;
      sets.postings.delete(key);
      // Field names hold no NUL; a value might.
      const [field, value] = [key.slice(0, key.indexOf('\u0000')), key.slice(key.indexOf('\u0000') + 1)];
      if (field === postingFieldOf.container()) removeSorted(sets.containers, value);
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
    const result = rowsMatching(this.store, tenantId, query, universe);
    return result === universe ? result : RoaringBitmap32.and(result, universe);
  }

  /** The rowids of a result's page in the search order; `rowsOf` reads a window of rows from the tokens table. */
  page(result: RoaringBitmap32, offset: number, size: number, rowsOf: (rowids: number[]) => WindowRow[]): number[] {
    return pageOf(this.columns, result, offset, size, rowsOf);
  }

  /** Live tokens of every tenant by type (the metrics gauge): one cardinality per tenant and type. */
  countByType(now: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const tenantId of this.tenants.keys()) {
      const universe = this.universe(tenantId, now);
      for (const [code, rows] of this.tenants.get(tenantId)!.grouped.type) {
        const n = rows.andCardinality(universe);
        if (n > 0) counts[this.strings.value(code)] = (counts[this.strings.value(code)] ?? 0) + n;
      }
    }
    return counts;
  }
}
