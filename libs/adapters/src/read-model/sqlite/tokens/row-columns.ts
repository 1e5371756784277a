// What the search bitmaps keep per token row, indexed by rowid: creation times with their running maximum and minimum
// (a created_at range and a page become binary searches), modification and expiry times, and the interned value of
// each grouped field (which set to take a row out of when it changes).
import { GROUPED_FIELDS, type GroupedField } from './bitmap-sets';

/** No value: an unused rowid, or a field that is unset. */
export const NONE = -1;

/** Growable per-row columns, indexed by rowid. */
export class RowColumns {
  capacity = 0;
  createdAt = new Float64Array(0);
  /** Max of createdAt over rows 0..i: every row at or before i was created at or before it. */
  prefixMax = new Float64Array(0);
  /** Min of createdAt over rows i..end: every row at or after i was created at or after it. */
  suffixMin = new Float64Array(0);
  modifiedAt = new Float64Array(0);
  expiresAt = new Float64Array(0);
  /** The interned value of each grouped field, NONE while unset. */
  codes = Object.fromEntries(GROUPED_FIELDS.map((field) => [field, new Int32Array(0)])) as Record<GroupedField, Int32Array>;
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
    for (const field of GROUPED_FIELDS) this.codes[field] = grow(this.codes[field], NONE);
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
export class Strings {
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
