// Keeps a process's search bitmaps equal to the read model file: built from the file once (at start-up, after a
// rebuild's swap, or when this process fell further behind than token_changes keeps), then caught up from
// token_changes before each search. The catch-up reads the log and the changed rows in one read transaction, so the
// bitmaps always reflect one committed state, whichever process committed it.
//
// At start-up the build runs before the API listens. After a swap the API is serving: the file is read on a worker
// thread (seconds at a million tokens) and only the loading into bitmaps runs on the event loop; searches wait for it
// meanwhile, every other request is answered as usual.
import { statement, type SqliteDatabase } from '../../../sqlite/open-database';
import type { SnapshotStatement } from '../count-worker';
import type { SqliteReadModel } from '../sqlite-read-model';
import { BROAD_POSTING, hasBroadTerms, listBroadTerms } from './broad-terms';
import { sqlitePostings } from './posting-source';
import { ROW_FIELDS, TokenBitmaps, type BitmapRow, type Numbers } from './token-bitmaps';
import { FIELD_COLUMNS } from './token-row';

type PostingHint = ['broad' | 'empty', string, string, string];

/** What the catch-up reads of a changed row: its rowid, tenant and expiry, then the column of each of ROW_FIELDS. */
const ROW_SQL = `SELECT rowid, tenant_id, expires_at_ms, ${ROW_FIELDS.map((field) => FIELD_COLUMNS[field]).join(', ')} FROM tokens WHERE rowid = ?`;

/**
 * What a build reads, in one read transaction. Aggregated in SQLite from covering indexes (no document is read): the
 * rows that share tenant, type and creator as two JSON arrays, and each broad posting as one.
 */
const BUILD_STATEMENTS: SnapshotStatement[] = [
  { sql: 'SELECT seq FROM token_changes ORDER BY seq DESC LIMIT 1' },
  { sql: 'SELECT MAX(rowid) FROM tokens' },
  {
    sql: `SELECT tenant_id, type, created_by_l, json_group_array(rowid), json_group_array(created_at_ms)
          FROM tokens INDEXED BY tokens_columns GROUP BY tenant_id, type, created_by_l`,
    typed: { 3: 'u32', 4: 'f64' },
  },
  { sql: 'SELECT rowid, tenant_id, modified_by_l, modified_at_ms FROM tokens INDEXED BY tokens_modified WHERE modified_at_ms IS NOT NULL' },
  { sql: 'SELECT rowid, tenant_id, expires_at_ms FROM tokens INDEXED BY tokens_expiring WHERE expires_at_ms IS NOT NULL' },
  {
    sql: `SELECT b.tenant_id, b.field, b.value, (SELECT json_group_array(t.token_rowid) FROM token_terms t
            WHERE t.tenant_id = b.tenant_id AND t.field = b.field AND t.value = b.value) FROM broad_terms b`,
    typed: { 3: 'u32' },
  },
];

/** Reads BUILD_STATEMENTS from a database file off the event loop (CountWorker.snapshot). */
export type SnapshotReader = (file: string, statements: SnapshotStatement[]) => Promise<unknown[][][]>;

export class TokenBitmapFollower {
  private bitmaps: TokenBitmaps | null = null;
  private builtFrom: SqliteDatabase | null = null;
  /** The last token_changes entry the bitmaps reflect. */
  private seq = 0;
  private builds = 0;
  /** The build off the event loop under way, if any. */
  private building: Promise<void> | null = null;

  constructor(
    private readonly model: SqliteReadModel,
    private readonly broadPosting = BROAD_POSTING,
    /** Without one, every build runs on the event loop. */
    private readonly offThread: SnapshotReader | null = null,
  ) {}

  /** How many times the bitmaps were built from scratch (tests). */
  get buildCount(): number {
    return this.builds;
  }

  /** The bitmaps, caught up with every change committed to the live file (built here, on the event loop, if need be). */
  current(): TokenBitmaps {
    const db = this.model.database;
    if (this.bitmaps === null || this.builtFrom !== db) this.build(db);
    else if (lastSeq(db) !== this.seq && !this.catchUp(db)) this.build(db);
    return this.bitmaps!;
  }

  /**
   * Null when the bitmaps are built from the live file (or there were none yet: the first build, at start-up, runs
   * in `current`). Otherwise, after a swap, the build off the event loop: started here once, awaited by searches.
   */
  ready(): Promise<void> | null {
    const db = this.model.database;
    if (this.bitmaps === null || this.builtFrom === db || this.offThread === null) return null;
    return (this.building ??= this.buildOffThread(db).finally(() => (this.building = null)));
  }

  /** Never rejects: when the worker fails, the build runs here instead, and if that fails too the next call retries. */
  private async buildOffThread(db: SqliteDatabase): Promise<void> {
    try {
      this.ensureBroadTerms(db);
      const rows = await this.offThread!(this.model.path, BUILD_STATEMENTS);
      // Swapped again meanwhile: the next ready() builds from that file.
      if (this.model.database !== db || !db.open) return;
      this.load(db, rows);
    } catch {
      try {
        if (this.model.database === db && db.open && this.builtFrom !== db) this.build(db);
      } catch {
        // The file is being swapped or closed.
      }
    }
  }

  private build(db: SqliteDatabase): TokenBitmaps {
    this.ensureBroadTerms(db);
    const rows = db.transaction(() =>
      BUILD_STATEMENTS.map(({ sql, typed }) => {
        const all = statement(db, sql).raw().all() as unknown[][];
        if (typed) for (const row of all) for (const column of Object.keys(typed)) row[Number(column)] = JSON.parse(row[Number(column)] as string);
        return all;
      }),
    )();
    return this.load(db, rows);
  }

  /** Makes bitmaps of what BUILD_STATEMENTS read from `db`, in one transaction, and puts them in use. */
  private load(db: SqliteDatabase, [seq, maxRowid, groups, modified, expiring, broad]: unknown[][][]): TokenBitmaps {
    const hints: PostingHint[] = [];
    const bitmaps = new TokenBitmaps(sqlitePostings(() => this.model.database), this.broadPosting, (...hint) => hints.push(hint));
    bitmaps.reserve((maxRowid[0]?.[0] as number | null) ?? 0);
    for (const [tenant, type, creator, rowids, times] of groups as Array<[string, string, string, Numbers, Numbers]>) {
      bitmaps.loadGroup(tenant, type, creator, rowids, times);
    }
    for (const [rowid, tenant, by, at] of modified as Array<[number, string, string, number]>) bitmaps.loadModified(tenant, rowid, by, at);
    for (const [rowid, tenant, at] of expiring as Array<[number, string, number]>) bitmaps.loadExpiry(tenant, rowid, at);
    for (const [tenant, field, value, members] of broad as Array<[string, string, string, Numbers]>) {
      if (members.length > 0) bitmaps.addPosting(tenant, field, value, members);
      else hints.push(['empty', tenant, field, value]); // emptied while no process followed the file
    }
    bitmaps.finishLoad();
    this.seq = (seq[0]?.[0] as number | undefined) ?? 0;
    this.bitmaps = bitmaps;
    this.builtFrom = db;
    this.builds += 1;
    this.hints = hints;
    return bitmaps;
  }

  /** Postings that grew broad or emptied since the last save, to record in broad_terms outside the read transaction. */
  private hints: PostingHint[] = [];

  /**
   * broad_terms lists the postings to load at build. A file that never had it computed (a rebuild's, or one from
   * before it existed) gets it once, from one pass over the token_terms index.
   */
  private ensureBroadTerms(db: SqliteDatabase): void {
    if (hasBroadTerms(db)) return;
    try {
      db.transaction(() => listBroadTerms(db, this.broadPosting)).immediate();
    } catch {
      // Inside a search's read snapshot another process committed first, or holds the write lock: this build loads
      // the postings listed so far (others come from SQLite, correct but slower), and the next build tries again.
    }
  }

  /**
   * Records the postings that grew broad, and drops those that emptied, in order (a hint for the next build: losing
   * it costs speed, never correctness). Called from the follow timer, never from a search: it takes the write lock,
   * which another process may hold.
   */
  saveHints(): void {
    const db = this.builtFrom;
    if (this.hints.length === 0 || db === null || !db.open) return;
    const hints = this.hints.splice(0);
    try {
      const insert = statement(db, 'INSERT OR IGNORE INTO broad_terms (tenant_id, field, value) VALUES (?, ?, ?)');
      const remove = statement(db, 'DELETE FROM broad_terms WHERE tenant_id = ? AND field = ? AND value = ?');
      db.transaction(() => hints.forEach(([change, ...term]) => (change === 'broad' ? insert : remove).run(...term))).immediate();
    } catch {
      // Another process holds the write lock past the busy timeout: the next build counts those postings again.
    }
  }

  /** Applies the changes after `seq`; false when some were pruned already (the caller rebuilds). */
  private catchUp(db: SqliteDatabase): boolean {
    const bitmaps = this.bitmaps!;
    return db.transaction(() => {
      const oldest = statement(db, 'SELECT seq FROM token_changes ORDER BY seq LIMIT 1').pluck().get() as number | undefined;
      if (oldest === undefined || oldest > this.seq + 1) return false;
      const changes = statement(db, 'SELECT seq, tenant_id, token_rowid FROM token_changes WHERE seq > ? ORDER BY seq').all(this.seq) as Array<{
        seq: number;
        tenant_id: string;
        token_rowid: number | null;
      }>;
      // Each changed row once: out of every set it was in, then into those of its current state.
      const rows = new Map<number, string>();
      for (const change of changes) {
        if (change.token_rowid === null) bitmaps.dropTenant(change.tenant_id);
        else rows.set(change.token_rowid, change.tenant_id);
      }
      const rowSql = statement(db, ROW_SQL).raw();
      const termsSql = statement(db, 'SELECT field, value FROM token_terms WHERE token_rowid = ?').raw();
      for (const [rowid, tenantId] of rows) {
        bitmaps.removeRow(tenantId, rowid);
        const row = rowSql.get(rowid) as unknown[] | undefined;
        if (row) bitmaps.addRow(bitmapRowOf(row), termsSql.all(rowid) as Array<[string, string]>);
      }
      this.seq = changes.length > 0 ? changes[changes.length - 1].seq : this.seq;
      return true;
    })();
  }
}

function lastSeq(db: SqliteDatabase): number {
  return (statement(db, 'SELECT seq FROM token_changes ORDER BY seq DESC LIMIT 1').pluck().get() as number | undefined) ?? 0;
}

function bitmapRowOf([rowid, tenant_id, expires_at_ms, ...values]: unknown[]): BitmapRow {
  const terms = Object.fromEntries(ROW_FIELDS.map((field, i) => [field, values[i]])) as BitmapRow['terms'];
  return { rowid: rowid as number, tenant_id: tenant_id as string, expires_at_ms: expires_at_ms as number | null, terms };
}
