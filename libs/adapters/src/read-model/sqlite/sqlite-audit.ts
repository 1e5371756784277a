// The audit log in the embedded read model: one row per entry (AuditDocument), with the columns GET /logs filters and
// orders on and retention deletes by. Entries hold ids, counts and fixed texts only, so nothing here needs sealing.
import { ACCESS_OPERATIONS, type AuditEntry } from '@vault/domain';
import { auditEntryFrom, type AuditDocument, type AuditListQuery, type AuditReadModel, type Page } from '@vault/application';
import { statement } from '../../sqlite/open-database';
import { documentTable, type SqliteCollection } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

const ACCESS_IN = `(${ACCESS_OPERATIONS.map((operation) => `'${operation}'`).join(', ')})`;

/** Rows per retention delete: each is its own short write transaction, so the projector is never held up for long. */
const DROP_BATCH = 5000;

export const auditTable: SqliteCollection = {
  ...documentTable(
    'audit',
    {
      // tenant_id also makes a tenant's entries one DELETE away (tenant deletion purges the read models).
      tenant_id: { type: 'TEXT', value: (d) => d.tenant_id as string },
      created_ms: {
        type: 'INTEGER',
        value: (d) => {
          const ms = Date.parse(d.created_at as string);
          return Number.isFinite(ms) ? ms : null;
        },
      },
      sort_key: { type: 'TEXT', value: (d) => d.sort_key as string },
      entity_type: { type: 'TEXT', value: (d) => d.entity_type as string },
      entity_id: { type: 'TEXT', value: (d) => (d.entity_id as string | null) ?? null },
      operation: { type: 'TEXT', value: (d) => d.operation as string },
    },
    // Every access record is a row, so every index costs each reveal: two only. This one orders a tenant's log, and
    // carries entity_type and operation so that the type filter and the retention sweep read it without the rows.
    ['CREATE INDEX IF NOT EXISTS audit_tenant_time ON audit (tenant_id, created_ms DESC, sort_key DESC, entity_type, operation)'],
  ),
  // Only the entity filter needs it: a rebuild creates it after its replay. It holds the order too, so that the planner
  // never prefers walking the tenant's whole log in order to sorting an entity's few entries.
  deferredIndexes: 'CREATE INDEX IF NOT EXISTS audit_tenant_entity ON audit (tenant_id, entity_id, created_ms DESC, sort_key DESC);',
};

export class SqliteAuditReadModel implements AuditReadModel {
  constructor(private readonly model: SqliteReadModel) {}

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
    const total = (statement(db, `SELECT COUNT(*) AS n FROM audit WHERE ${clause}`).get(...params) as { n: number }).n;
    const rows = statement(db, `SELECT doc FROM audit WHERE ${clause} ORDER BY created_ms DESC, sort_key DESC LIMIT ? OFFSET ?`).all(
      ...params,
      query.size,
      (query.page - 1) * query.size,
    ) as Array<{ doc: string }>;
    return { total, items: rows.map((row) => auditEntryFrom(JSON.parse(row.doc) as AuditDocument)) };
  }

  /** Tenant by tenant (their ids come from the index's first column), each in batches of short transactions. */
  async dropAccessRecordsBefore(cutoff: Date): Promise<number> {
    const tenants = statement(this.model.database, 'SELECT DISTINCT tenant_id FROM audit').all() as Array<{ tenant_id: string }>;
    const sql = `DELETE FROM audit WHERE rowid IN (SELECT rowid FROM audit WHERE tenant_id = ? AND created_ms < ? AND operation IN ${ACCESS_IN} LIMIT ${DROP_BATCH})`;
    let dropped = 0;
    for (const { tenant_id } of tenants) {
      for (;;) {
        // The live file each time: a rebuild swapped in between batches is swept too.
        const { changes } = statement(this.model.database, sql).run(tenant_id, cutoff.getTime());
        dropped += changes;
        // Let requests and the projector in between batches.
        await new Promise((resolve) => setImmediate(resolve));
        if (changes < DROP_BATCH) break;
      }
    }
    return dropped;
  }
}
