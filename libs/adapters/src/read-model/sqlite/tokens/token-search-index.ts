// The embedded TokenSearchIndex: single-token reads from the tokens table, and every search answered by this process's
// search bitmaps (token-bitmaps.ts), which it builds at start-up and keeps caught up with the file's commits.
import type { Page, TokenDocument, TokenSearchIndex, TokenSearchRequest } from '@vault/application';
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import { CountWorker } from '../count-worker';
import type { SqliteReadModel } from '../sqlite-read-model';
import { TokenBitmapFollower } from './token-bitmap-follower';

/** How often warmed-up bitmaps apply the commits since the last search. */
const FOLLOW_INTERVAL_MS = 100;

/** How a search ran, for the API's metrics: the in-memory bitmaps answer every search (token-bitmaps.ts). */
export type SqliteSearchPlan = 'bitmaps';

export interface SqliteTokenSearchOptions {
  /** Postings with at least this many tokens are kept in memory (default BROAD_POSTING; tests set 1). */
  broadPosting?: number;
  /** Told after each search which plan it took and how long it ran, in seconds (the API's metrics). */
  onSearch?: (plan: SqliteSearchPlan, seconds: number) => void;
}

export class SqliteTokenSearchIndex implements TokenSearchIndex {
  private readonly onSearch?: (plan: SqliteSearchPlan, seconds: number) => void;
  /** Reads the file off the event loop when the bitmaps are rebuilt after a swap. */
  private readonly reader = new CountWorker();
  private readonly bitmaps: TokenBitmapFollower;
  private bitmapSearch: { db: SqliteDatabase; run: (request: TokenSearchRequest) => Page<TokenDocument> } | null = null;
  private following: NodeJS.Timeout | null = null;

  constructor(
    private readonly model: SqliteReadModel,
    options: SqliteTokenSearchOptions = {},
  ) {
    this.onSearch = options.onSearch;
    this.bitmaps = new TokenBitmapFollower(model, options.broadPosting, (file, statements) => this.reader.snapshot(file, statements));
  }

  /**
   * Builds the search bitmaps now (start-up) rather than on the first search, and from then on catches them up with
   * the file's commits every FOLLOW_INTERVAL_MS (this process's projector's and any other process's), so that no
   * search has a long backlog to apply first.
   */
  warmUp(): void {
    if (this.following) return;
    this.bitmaps.current();
    this.following = setInterval(() => {
      try {
        // After a swap this starts the build off the event loop; the catch-up resumes once it is done.
        if (this.bitmaps.ready() !== null) return;
        this.bitmaps.current();
        this.bitmaps.saveHints();
      } catch {
        // The file is being swapped or closed; the next search or tick tries again.
      }
    }, FOLLOW_INTERVAL_MS);
    this.following.unref();
  }

  async close(): Promise<void> {
    if (this.following) clearInterval(this.following);
    this.following = null;
    await this.reader.close();
  }

  async get(tenantId: string, id: string, now: number): Promise<TokenDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM tokens WHERE tenant_id = ? AND id = ? AND (expires_at_ms IS NULL OR expires_at_ms > ?)').get(
      tenantId,
      id.toLowerCase(),
      now,
    ) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async search(request: TokenSearchRequest): Promise<Page<TokenDocument>> {
    if (this.bitmaps.ready() !== null) await this.bitmapsBuilt();
    return this.searchBitmaps(request);
  }

  /** After a swap, until the bitmaps of the new file are built off the event loop (a few tries; then `current` builds). */
  private async bitmapsBuilt(): Promise<void> {
    for (let tries = 0, pending = this.bitmaps.ready(); pending !== null && tries < 3; tries++, pending = this.bitmaps.ready()) await pending;
  }

  /** The query as set algebra: microseconds for AND/OR/NOT of any breadth, an exact total, a page from the end. */
  private searchBitmaps(request: TokenSearchRequest): Page<TokenDocument> {
    const started = process.hrtime.bigint();
    const db = this.model.database;
    // One read transaction: the catch-up, the selective postings and the page's rows all see one committed state,
    // whichever process commits meanwhile. Made once per file: better-sqlite3 builds its wrappers on every call.
    if (this.bitmapSearch?.db !== db) this.bitmapSearch = { db, run: db.transaction((r: TokenSearchRequest) => this.bitmapPage(db, r)) };
    const answer = this.bitmapSearch.run(request);
    this.onSearch?.('bitmaps', Number(process.hrtime.bigint() - started) / 1e9);
    return answer;
  }

  private bitmapPage(db: SqliteDatabase, { tenantId, query, now, page, size }: TokenSearchRequest): Page<TokenDocument> {
    const bitmaps = this.bitmaps.current();
    const result = bitmaps.evaluate(tenantId, query, now);
    const docs = new Map<number, string>();
    const rowids = bitmaps.page(result, (page - 1) * size, size, (window) => {
      const rows = statement(db, 'SELECT rowid, id, created_at_ms, doc FROM tokens WHERE rowid IN (SELECT value FROM json_each(?))').all(
        JSON.stringify(window),
      ) as Array<{ rowid: number; id: string; created_at_ms: number; doc: string }>;
      for (const row of rows) docs.set(row.rowid, row.doc);
      return rows;
    });
    return { total: result.size, items: rowids.map((rowid) => JSON.parse(docs.get(rowid)!) as TokenDocument) };
  }

  async expired(now: number, limit: number): Promise<Array<{ id: string; tenant_id: string }>> {
    return statement(
      this.model.database,
      'SELECT id, tenant_id FROM tokens WHERE expires_at_ms IS NOT NULL AND expires_at_ms <= ? ORDER BY expires_at_ms, id LIMIT ?',
    ).all(now, limit) as Array<{ id: string; tenant_id: string }>;
  }

  /** Cardinalities of the bitmaps. */
  async countByType(now: number): Promise<Record<string, number>> {
    await this.bitmapsBuilt();
    return this.bitmaps.current().countByType(now);
  }
}
