// Keeps a process's search bitmaps equal to the read model file: built from the file once (at start-up, after a
// rebuild's swap, or when this process fell further behind than token_changes keeps), then caught up from
// token_changes before each search. The catch-up reads the log and the changed rows in one read transaction, so the
// bitmaps always reflect one committed state, whichever process committed it.
import type { SqliteDatabase } from '../../../sqlite/open-database';
import { statement } from '../../../sqlite/open-database';
import type { SqliteReadModel } from '../sqlite-read-model';
import { BROAD_POSTING, sqlitePostings, TokenBitmaps, type TokenRowColumns } from './token-bitmaps';

type PostingHint = ['broad' | 'empty', string, string, string];

const ROW_COLUMNS = 'rowid, tenant_id, type, created_by_l, modified_by_l, created_at_ms, modified_at_ms, expires_at_ms';

export class TokenBitmapFollower {
  private bitmaps: TokenBitmaps | null = null;
  private builtFrom: SqliteDatabase | null = null;
  /** The last token_changes entry the bitmaps reflect. */
  private seq = 0;
  private builds = 0;

  constructor(
    private readonly model: SqliteReadModel,
    private readonly broadPosting = BROAD_POSTING,
  ) {}

  /** How many times the bitmaps were built from scratch (tests). */
  get buildCount(): number {
    return this.builds;
  }

  /** The bitmaps, caught up with every change committed to the live file. */
  current(): TokenBitmaps {
    const db = this.model.database;
    if (this.bitmaps === null || this.builtFrom !== db) this.build(db);
    else if (lastSeq(db) !== this.seq && !this.catchUp(db)) this.build(db);
    return this.bitmaps!;
  }

  private build(db: SqliteDatabase): TokenBitmaps {
    this.ensureBroadTerms(db);
    const hints: PostingHint[] = [];
    const bitmaps = new TokenBitmaps(sqlitePostings(() => this.model.database), this.broadPosting, (...hint) => hints.push(hint));
    // Aggregated in SQLite from covering indexes (no document is read), one JSON array per group of rows.
    db.transaction(() => {
      this.seq = lastSeq(db);
      bitmaps.reserve((statement(db, 'SELECT MAX(rowid) FROM tokens').pluck().get() as number | null) ?? 0);
      const groups = statement(
        db,
        `SELECT tenant_id, type, created_by_l, json_group_array(rowid), json_group_array(created_at_ms)
         FROM tokens INDEXED BY tokens_columns GROUP BY tenant_id, type, created_by_l`,
      ).raw();
      for (const [tenant, type, creator, rowids, times] of groups.all() as string[][]) bitmaps.loadGroup(tenant, type, creator, JSON.parse(rowids), JSON.parse(times));
      const modified = statement(
        db,
        'SELECT rowid, tenant_id, modified_by_l, modified_at_ms FROM tokens INDEXED BY tokens_modified WHERE modified_at_ms IS NOT NULL',
      ).raw();
      for (const [rowid, tenant, by, at] of modified.all() as Array<[number, string, string, number]>) bitmaps.loadModified(tenant, rowid, by, at);
      const expiring = statement(db, 'SELECT rowid, tenant_id, expires_at_ms FROM tokens INDEXED BY tokens_expiring WHERE expires_at_ms IS NOT NULL').raw();
      for (const [rowid, tenant, at] of expiring.all() as Array<[number, string, number]>) bitmaps.loadExpiry(tenant, rowid, at);
      const broad = statement(
        db,
        `SELECT b.tenant_id, b.field, b.value, (SELECT json_group_array(t.token_rowid) FROM token_terms t
           WHERE t.tenant_id = b.tenant_id AND t.field = b.field AND t.value = b.value) FROM broad_terms b`,
      ).raw();
      for (const [tenant, field, value, rowids] of broad.all() as string[][]) {
        const members = JSON.parse(rowids) as number[];
        if (members.length > 0) bitmaps.addPosting(tenant, field, value, members);
        else hints.push(['empty', tenant, field, value]); // emptied while no process followed the file
      }
      bitmaps.finishLoad();
    })();
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
    if (statement(db, "SELECT 1 FROM token_index_state WHERE key = 'broad_terms'").pluck().get() !== undefined) return;
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
      const rowSql = statement(db, `SELECT ${ROW_COLUMNS} FROM tokens WHERE rowid = ?`).raw();
      const termsSql = statement(db, 'SELECT field, value FROM token_terms WHERE token_rowid = ?').raw();
      for (const [rowid, tenantId] of rows) {
        bitmaps.removeRow(tenantId, rowid);
        const row = rowSql.get(rowid) as unknown[] | undefined;
        if (row) bitmaps.addRow(columnsOf(row), termsSql.all(rowid) as Array<[string, string]>);
      }
      this.seq = changes.length > 0 ? changes[changes.length - 1].seq : this.seq;
      return true;
    })();
  }
}

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

function lastSeq(db: SqliteDatabase): number {
  return (statement(db, 'SELECT seq FROM token_changes ORDER BY seq DESC LIMIT 1').pluck().get() as number | undefined) ?? 0;
}

function columnsOf(row: unknown[]): TokenRowColumns {
  return {
    rowid: row[0] as number,
    tenant_id: row[1] as string,
    type: row[2] as string,
    created_by_l: row[3] as string,
    modified_by_l: row[4] as string | null,
    created_at_ms: row[5] as number,
    modified_at_ms: row[6] as number | null,
    expires_at_ms: row[7] as number | null,
  };
}
