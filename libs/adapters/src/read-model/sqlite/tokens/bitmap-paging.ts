// A page of a search result in the search order (created_at descending, then id) without sorting the whole result:
// rowids follow the log, so rowid order is creation order but for the few rows concurrent requests created out of it.
import type { RoaringBitmap32 } from 'roaring';
import type { RowColumns } from './row-columns';

/** A row of the window the page is cut from, read from the tokens table. */
export interface WindowRow {
  rowid: number;
  id: string;
  created_at_ms: number;
}

/**
 * The rowids of a result's page: a window of the result in rowid order around where the page must be, widened until no
 * row outside it can sort inside it (every row before the window was created strictly before every row in it, and
 * every row after it strictly after). `rowsOf` gives the window's rows' ids and creation times for the exact order
 * inside the window.
 */
export function pageOf(
  columns: RowColumns,
  result: RoaringBitmap32,
  offset: number,
  size: number,
  rowsOf: (rowids: number[]) => WindowRow[],
): number[] {
  const total = result.size;
  if (offset >= total || size <= 0) return [];
  // Newest first: sort position p is about rank total-1-p in rowid order.
  let hiRank = total - 1 - offset;
  let loRank = Math.max(0, total - offset - size);
  let lo = result.select(loRank)!;
  let hi = result.select(hiRank)!;
  const clean = (before: number, after: number) => columns.prefixMax[before] < columns.suffixMin[after];
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
