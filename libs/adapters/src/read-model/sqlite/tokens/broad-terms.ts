// The broad_terms list: the token_terms postings broad enough for the search bitmaps to keep in memory, so that a build
// loads them without counting every posting. A hint only: a missing entry costs speed, never a wrong answer.
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';

/** A container, metadata pair or data hash with at least this many tokens is kept in memory. */
export const BROAD_POSTING = 128;

/**
 * Lists in broad_terms every posting with at least `threshold` tokens, from one pass over the token_terms index, and
 * marks the list complete: a rebuild does it before the swap, so that no API's first build after it must.
 */
export function listBroadTerms(db: SqliteDatabase, threshold = BROAD_POSTING): void {
  statement(
    db,
    'INSERT OR IGNORE INTO broad_terms (tenant_id, field, value) SELECT tenant_id, field, value FROM token_terms GROUP BY tenant_id, field, value HAVING COUNT(*) >= ?',
  ).run(threshold);
  statement(db, "INSERT OR REPLACE INTO token_index_state (key, value) VALUES ('broad_terms', 'complete')").run();
}

/** Whether broad_terms was ever computed from the whole file (a rebuild's file, or one from before it existed, was not). */
export function hasBroadTerms(db: SqliteDatabase): boolean {
  return statement(db, "SELECT 1 FROM token_index_state WHERE key = 'broad_terms'").pluck().get() !== undefined;
}
