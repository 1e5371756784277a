// What the search bitmaps read from SQLite rather than keep in memory: the selective token_terms postings, and the rows
// of a term field that is not grouped in memory, through the read model's indexes.
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import { postingFieldOf } from './token-row';

export interface PostingSource {
  /** Rowids of one token_terms posting. */
  posting(tenantId: string, field: string, value: string): number[];
  /** Rowids of container postings in [from, to), skipping the values `skip` (sorted, all inside the range). */
  containerRange(tenantId: string, from: string, to: string, skip: readonly string[]): number[];
  /** How many rows a posting has, counting up to `limit`. */
  postingSize(tenantId: string, field: string, value: string, limit: number): number;
  /** Rowids of the tenant's tokens whose tokens-table `column` holds `value`. */
  byColumn(tenantId: string, column: string, value: string): number[];
}

/** The PostingSource of the live read-model file (`db` is asked each time, so it follows a swap). */
export function sqlitePostings(db: () => SqliteDatabase): PostingSource {
  return {
    posting: (tenantId, field, value) =>
      statement(db(), 'SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ?').pluck().all(tenantId, field, value) as number[],
    containerRange: (tenantId, from, to, skip) => {
      // The gaps between the broad values: an index range each, so no broad posting's rows are read.
      const bounds = [from, ...skip.flatMap((value) => [value, value + '\u0000']), to];
      const rows: number[] = [];
      const sql = `SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = '${postingFieldOf.container()}' AND value >= ? AND value < ?`;
      for (let i = 0; i < bounds.length; i += 2) {
        if (bounds[i] < bounds[i + 1]) rows.push(...(statement(db(), sql).pluck().all(tenantId, bounds[i], bounds[i + 1]) as number[]));
      }
      return rows;
    },
    postingSize: (tenantId, field, value, limit) =>
      statement(db(), 'SELECT COUNT(*) FROM (SELECT 1 FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ? LIMIT ?)')
        .pluck()
        .get(tenantId, field, value, limit) as number,
    // `column` comes from FIELD_COLUMNS, never from a query.
    byColumn: (tenantId, column, value) =>
      statement(db(), `SELECT rowid FROM tokens WHERE tenant_id = ? AND ${column} = ?`).pluck().all(tenantId, value) as number[],
  };
}
