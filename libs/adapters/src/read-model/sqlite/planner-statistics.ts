// When the read model refreshes SQLite's planner statistics, which cost a read of every index page of the file.
import { statement, type SqliteDatabase } from '../../sqlite/open-database';

/**
 * SQLite's planner statistics (ANALYZE), so that it picks the selective index for a lookup (a fingerprint, a data
 * hash) over a broader one. An ANALYZE costs the whole file's indexes at any size: SQLite
 * as better-sqlite3 builds it (STAT4) counts every entry of every index exactly, whatever `analysis_limit` says
 * (which only bounds the sampling of each index). At a million tokens that is 1.4 GB of index pages, read on the event
 * loop: 24 s on a file not in the OS page cache, about 3 s on one that is.
 * So statistics are refreshed only while the file is small, when its used pages have doubled (or halved) since the
 * last run, and that size is kept in the file, so a restart does not start over. Past STATISTICS_SETTLED_BYTES they
 * stay as they are: what the planner needs from them (tokens per tenant, per fingerprint, per search term, against
 * the table's size) has its shape by then, and the next run would walk every index.
 */
export const PLANNER_STATISTICS_SCHEMA =
  'CREATE TABLE IF NOT EXISTS planner_statistics (id INTEGER PRIMARY KEY CHECK (id = 1), analyzed_pages INTEGER NOT NULL);';
/** Changed documents between two looks at the file's size (two pragmas). */
const STATISTICS_CHECK_EVERY = 1000;
/** About 20,000 tokens: an ANALYZE of that file took 20 ms, and 1 s with the file out of the OS page cache. */
const STATISTICS_SETTLED_BYTES = 64 * 1024 * 1024;

export class PlannerStatistics {
  private sinceCheck = 0;

  changed(db: SqliteDatabase, count: number): void {
    this.sinceCheck += count;
    if (this.sinceCheck < STATISTICS_CHECK_EVERY) return;
    this.sinceCheck = 0;
    const used = usedPages(db);
    if (used * pageSize(db) > STATISTICS_SETTLED_BYTES) return;
    // Every open records a size (statisticsAtOpen), so a missing one means none: analyze.
    const analyzed = analyzedPages(db) ?? 0;
    if (used >= 2 * analyzed || 2 * used <= analyzed) analyze(db);
  }
}

/**
 * At open, statistics only for a file that has none (a new file, or one of a version that kept no record of them and
 * never analyzed it); a file with statistics but no record of their size (analyzed at every open by earlier
 * versions) has its current size recorded instead.
 */
export function statisticsAtOpen(db: SqliteDatabase): void {
  if (analyzedPages(db) !== null) return;
  if (hasStatistics(db)) recordAnalyzedPages(db, usedPages(db));
  else analyze(db);
}

export function analyze(db: SqliteDatabase): void {
  // Also what keeps sqlite_stat4 empty: without a limit, STAT4 stores sampled index keys (fingerprints, search
  // hashes), which would outlive the tokens they were taken from, and nothing derived from token data may.
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
  recordAnalyzedPages(db, usedPages(db));
}

/** Pages holding something: the file's size less its free list. */
function usedPages(db: SqliteDatabase): number {
  return (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
}

function pageSize(db: SqliteDatabase): number {
  return db.pragma('page_size', { simple: true }) as number;
}

function analyzedPages(db: SqliteDatabase): number | null {
  const row = statement(db, 'SELECT analyzed_pages FROM planner_statistics WHERE id = 1').get() as { analyzed_pages: number } | undefined;
  return row?.analyzed_pages ?? null;
}

function recordAnalyzedPages(db: SqliteDatabase, pages: number): void {
  statement(db, 'INSERT INTO planner_statistics (id, analyzed_pages) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET analyzed_pages = excluded.analyzed_pages').run(pages);
}

function hasStatistics(db: SqliteDatabase): boolean {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_stat1'").get();
  return table !== undefined && db.prepare('SELECT 1 FROM sqlite_stat1 LIMIT 1').get() !== undefined;
}
