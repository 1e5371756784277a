// Keeps a process's search bitmaps equal to the read model file: built from the file once (at start-up, after a
// rebuild's swap, or when this process fell further behind than token_changes keeps), then caught up from
// token_changes before each search. The catch-up reads the log and the changed rows in one read transaction, so the
// bitmaps always reflect one committed state, whichever process committed it.
import type { SqliteDatabase } from '../../../sqlite/open-database';
import { statement } from '../../../sqlite/open-database';
import type { SqliteReadModel } from '../sqlite-read-model';
import { BROAD_POSTING, sqlitePostings, TokenBitmaps, type TokenRowColumns } from './token-bitmaps';

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
    if (this.bitmaps === null || this.builtFrom !== db) return this.build(db);
    if (lastSeq(db) !== this.seq && !this.catchUp(db)) return this.build(db);
    return this.bitmaps;
  }

  private build(db: SqliteDatabase): TokenBitmaps {
    const bitmaps = new TokenBitmaps(sqlitePostings(() => this.model.database), this.broadPosting);
    db.transaction(() => {
      this.seq = lastSeq(db);
      const rows = statement(db, `SELECT ${ROW_COLUMNS} FROM tokens ORDER BY rowid`).raw().iterate() as IterableIterator<unknown[]>;
      for (const row of rows) bitmaps.addRow(columnsOf(row), []);
      const broad = statement(
        db,
        'SELECT tenant_id, field, value FROM token_terms GROUP BY tenant_id, field, value HAVING COUNT(*) >= ?',
      ).all(this.broadPosting) as Array<{ tenant_id: string; field: string; value: string }>;
      const members = statement(db, 'SELECT token_rowid FROM token_terms WHERE tenant_id = ? AND field = ? AND value = ?').pluck();
      for (const { tenant_id, field, value } of broad) bitmaps.addPosting(tenant_id, field, value, members.all(tenant_id, field, value) as number[]);
    })();
    this.bitmaps = bitmaps;
    this.builtFrom = db;
    this.builds += 1;
    return bitmaps;
  }

  /** Applies the changes after `seq`; false when some were pruned already (the caller rebuilds). */
  private catchUp(db: SqliteDatabase): boolean {
    const bitmaps = this.bitmaps!;
    return db.transaction(() => {
      const oldest = statement(db, 'SELECT seq FROM token_changes ORDER BY seq LIMIT 1').pluck().get() as number | undefined;
      if (oldest === undefined || oldest > this.seq + 1) return false;
      const changes = statement(db, 'SELECT seq, tenant_id, token_rowid, old_terms FROM token_changes WHERE seq > ? ORDER BY seq').all(this.seq) as Array<{
        seq: number;
        tenant_id: string;
        token_rowid: number | null;
        old_terms: string | null;
      }>;
      // Each changed row once: out of every set it was in, then into those of its current state.
      const rows = new Map<number, { tenantId: string; oldTerms: Array<[string, string]> }>();
      for (const change of changes) {
        if (change.token_rowid === null) {
          bitmaps.dropTenant(change.tenant_id);
          continue;
        }
        const entry = rows.get(change.token_rowid) ?? { tenantId: change.tenant_id, oldTerms: [] };
        if (change.old_terms !== null) entry.oldTerms.push(...(JSON.parse(change.old_terms) as Array<[string, string]>));
        rows.set(change.token_rowid, entry);
      }
      const rowSql = statement(db, `SELECT ${ROW_COLUMNS} FROM tokens WHERE rowid = ?`).raw();
      const termsSql = statement(db, 'SELECT field, value FROM token_terms WHERE token_rowid = ?').raw();
      for (const [rowid, { tenantId, oldTerms }] of rows) {
        bitmaps.removeRow(tenantId, rowid, oldTerms);
        const row = rowSql.get(rowid) as unknown[] | undefined;
        if (row) bitmaps.addRow(columnsOf(row), termsSql.all(rowid) as Array<[string, string]>);
      }
      this.seq = changes.length > 0 ? changes[changes.length - 1].seq : this.seq;
      return true;
    })();
  }
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
