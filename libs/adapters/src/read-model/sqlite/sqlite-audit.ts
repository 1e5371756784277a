// The audit log in the embedded read model: one row per entry (AuditDocument). Entries hold ids, counts and fixed texts
// only, so nothing here needs sealing. Every access record is a row written on the way to a reveal's answer being
// projected, so the table is kept lean: the entry's fields are its columns (no JSON copy of the document), the row is
// keyed by the entry's sort key, its log position (WITHOUT ROWID: one B-tree, appended at its end), and it has one
// index, appended at its end too. An index on entity ids would take each record's random id into a random page, which
// measured as much as the rest of the row together; the entity filter reads the time index instead (see list).
import { ACCESS_OPERATIONS, type AuditEntry } from '@vault/domain';
import type { AuditDocument, AuditListQuery, AuditReadModel, Page } from '@vault/application';
import { statement, type SqliteDatabase } from '../../sqlite/open-database';
import type { BulkRows } from './bulk-writer-thread';
import type { BulkDocument, BulkWriter, SqliteCollection } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';
import { CountWorker } from './count-worker';

const ACCESS: ReadonlySet<string> = new Set(ACCESS_OPERATIONS);

/**
 * Entries per retention batch: each batch's delete is its own transaction of some 25 ms (measured: 600,000 records
 * in 13-17 s on a busy 2-core machine), so neither the projector nor a request waits long behind it.
 */
const DROP_BATCH = 1000;

const ENTRY_COLUMNS = 'tenant_id, actor_id, actor_type, entity_type, entity_id, operation, message, created_at';

interface AuditRow extends AuditEntry {
  id: string;
  revision: number;
}

const entryOf = (row: AuditRow): AuditEntry => ({
  tenant_id: row.tenant_id,
  actor_id: row.actor_id,
  actor_type: row.actor_type,
  entity_type: row.entity_type,
  entity_id: row.entity_id,
  operation: row.operation,
  message: row.message,
  created_at: row.created_at,
});

const createdMs = (createdAt: string): number | null => {
  const ms = Date.parse(createdAt);
  return Number.isFinite(ms) ? ms : null;
};

/** An audit row's values in the audit table's column order (the upsert and a rebuild's bulk rows). */
function auditRowValues(id: string, revision: bigint, doc: AuditDocument): Array<string | number | null> {
  return [
    id,
    Number(revision),
    doc.tenant_id,
    doc.actor_id,
    doc.actor_type,
    doc.entity_type,
    doc.entity_id ?? null,
    doc.operation,
    doc.message,
    doc.created_at,
    createdMs(doc.created_at),
  ];
}

const AUDIT_INSERT = `INSERT INTO audit (id, revision, ${ENTRY_COLUMNS}, created_ms)`;
const AUDIT_WIDTH = 11;

/**
 * The rebuild's rows for new audit entries: the rows upsert writes for entries not in the file yet, as multi-row INSERTs
 * (sqlite-rebuild-store.spec.ts holds them to upsert's rows).
 */
const auditBulkWriter = (): BulkWriter => ({
  rowsOf(docs: BulkDocument[]): BulkRows[] {
    const values: unknown[] = [];
    for (const { id, revision, doc } of docs) values.push(...auditRowValues(id, revision, doc as unknown as AuditDocument));
    return [{ head: AUDIT_INSERT, width: AUDIT_WIDTH, values }];
  },
});

export const auditTable: SqliteCollection = {
  name: 'audit',
  // `id` is the sort key. The index holds a tenant's log in order (scanned backwards for newest first) and carries
  // every filtered column, so that filters, counts and the retention sweep read it without the rows.
  schema: `CREATE TABLE IF NOT EXISTS audit (
      id TEXT PRIMARY KEY, revision INTEGER NOT NULL, tenant_id TEXT NOT NULL, actor_id TEXT NOT NULL, actor_type TEXT NOT NULL,
      entity_type TEXT NOT NULL, entity_id TEXT, operation TEXT NOT NULL, message TEXT NOT NULL, created_at TEXT NOT NULL,
      created_ms INTEGER
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS audit_tenant_time ON audit (tenant_id, created_ms, id, entity_type, operation, entity_id);`,
  bulkWriter: auditBulkWriter,
  upsert(db: SqliteDatabase, id: string, revision: bigint, raw: Record<string, unknown>) {
    const doc = raw as unknown as AuditDocument;
    statement(
      db,
      `INSERT INTO audit (id, revision, ${ENTRY_COLUMNS}, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, tenant_id = excluded.tenant_id, actor_id = excluded.actor_id,
         actor_type = excluded.actor_type, entity_type = excluded.entity_type, entity_id = excluded.entity_id,
         operation = excluded.operation, message = excluded.message, created_at = excluded.created_at, created_ms = excluded.created_ms`,
    ).run(...auditRowValues(id, revision, doc));
  },
  remove(db, id) {
    statement(db, 'DELETE FROM audit WHERE id = ?').run(id);
  },
  load(db, ids) {
    if (ids.length === 0) return [];
    const rows = statement(db, `SELECT id, revision, ${ENTRY_COLUMNS} FROM audit WHERE id IN (SELECT value FROM json_each(?))`).all(
      JSON.stringify(ids),
    ) as AuditRow[];
    return rows.map((row) => ({ id: row.id, revision: row.revision, doc: JSON.stringify({ ...entryOf(row), sort_key: row.id } satisfies AuditDocument) }));
  },
  // A deleted tenant's entries go with its other documents.
  purgeTenant(db, tenantId) {
    statement(db, 'DELETE FROM audit WHERE tenant_id = ?').run(tenantId);
  },
};

/**
 * Matches counted, and rows skipped for a page, on the event loop; past either, the count and the page are read on a
 * worker thread (the entity filter reads the tenant's whole log: 0.4-0.6 s at 900,000 entries, which no request may
 * hold the event loop for).
 */
const INLINE_LIMIT = 10_000;

export class SqliteAuditReadModel implements AuditReadModel {
  private readonly worker = new CountWorker();

  constructor(
    private readonly model: SqliteReadModel,
    private readonly inlineLimit = INLINE_LIMIT,
  ) {}

  async close(): Promise<void> {
    await this.worker.close();
  }

  async list(tenantId: string, query: AuditListQuery): Promise<Page<AuditEntry>> {
    const conditions = ['tenant_id = ?'];
    const params: unknown[] = [tenantId];
    const where = (condition: string, value: unknown) => {
      conditions.push(condition);
      params.push(value);
    };
    if (query.entity_type !== undefined) where('entity_type = ?', query.entity_type);
    if (query.entity_id !== undefined) where('entity_id = ?', query.entity_id);
    if (query.start_date !== undefined) where('created_ms >= ?', query.start_date.getTime());
    if (query.end_date !== undefined) where('created_ms <= ?', query.end_date.getTime());
    const db = this.model.database;
    const clause = conditions.join(' AND ');
    const countSql = `SELECT COUNT(*) AS n FROM audit WHERE ${clause}`;
    const pageSql = `SELECT ${ENTRY_COLUMNS} FROM audit WHERE ${clause} ORDER BY created_ms DESC, id DESC LIMIT ? OFFSET ?`;
    const offset = (query.page - 1) * query.size;
    const pageParams = [...params, query.size, offset];
    // The entity filters are checked row by row along the tenant's log (its index carries them): on a long log that is
    // a long walk whatever it matches, so it goes to the worker. Otherwise up to inlineLimit matches are counted here.
    const filtered = query.entity_id !== undefined || query.entity_type !== undefined;
    if (!(filtered && this.tenantLogIsLong(tenantId)) && offset < this.inlineLimit) {
      const bounded = (statement(db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM audit WHERE ${clause} LIMIT ?)`).get(...params, this.inlineLimit) as {
        n: number;
      }).n;
      if (bounded < this.inlineLimit) return { total: bounded, items: (statement(db, pageSql).all(...pageParams) as AuditRow[]).map(entryOf) };
    }
    try {
      const file = this.model.path;
      const [total, rows] = await Promise.all([this.worker.count(file, countSql, params), this.worker.rows<AuditRow>(file, pageSql, pageParams)]);
      return { total, items: rows.map(entryOf) };
    } catch {
      // Without a worker (it failed to start or died), read here rather than fail the request.
      const total = (statement(this.model.database, countSql).get(...params) as { n: number }).n;
      return { total, items: (statement(this.model.database, pageSql).all(...pageParams) as AuditRow[]).map(entryOf) };
    }
  }

  /** Whether the tenant's log is longer than the inline limit (a walk along it is then too long for the event loop). */
  private tenantLogIsLong(tenantId: string): boolean {
    const { n } = statement(this.model.database, 'SELECT COUNT(*) AS n FROM (SELECT 1 FROM audit WHERE tenant_id = ? LIMIT ?)').get(tenantId, this.inlineLimit) as {
      n: number;
    };
    return n >= this.inlineLimit;
  }

  /**
   * Tenant by tenant (their ids come from the index's first column), walking each tenant's log in order up to the cutoff
   * a batch at a time from where the last batch stopped (entries of writes stay, and are not read twice), deleting the
   * batch's access records in one short transaction.
   */
  async dropAccessRecordsBefore(cutoff: Date): Promise<number> {
    const tenants = statement(this.model.database, 'SELECT DISTINCT tenant_id FROM audit').all() as Array<{ tenant_id: string }>;
    const next = `SELECT id, created_ms, operation FROM audit WHERE tenant_id = ? AND created_ms < ? AND (created_ms, id) > (?, ?)
                  ORDER BY created_ms, id LIMIT ${DROP_BATCH}`;
    const drop = 'DELETE FROM audit WHERE id IN (SELECT value FROM json_each(?))';
    let dropped = 0;
    for (const { tenant_id } of tenants) {
      let after: [number, string] = [Number.MIN_SAFE_INTEGER, ''];
      for (;;) {
        // The live file each time: a rebuild swapped in between batches is swept too.
        const rows = statement(this.model.database, next).all(tenant_id, cutoff.getTime(), ...after) as Array<{
          id: string;
          created_ms: number;
          operation: string;
        }>;
        const access = rows.filter((row) => ACCESS.has(row.operation)).map((row) => row.id);
        if (access.length > 0) dropped += statement(this.model.database, drop).run(JSON.stringify(access)).changes;
        if (rows.length < DROP_BATCH) break;
        after = [rows[rows.length - 1].created_ms, rows[rows.length - 1].id];
        // Let requests and the projector in between batches.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    return dropped;
  }
}
