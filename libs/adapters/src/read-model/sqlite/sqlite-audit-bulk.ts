// The rebuild's writer of new audit rows: the rows auditTable.upsert writes for entries not in the file yet, many rows
// per statement (sqlite-audit-bulk.spec.ts holds it to upsert's rows).
import type { AuditDocument } from '@vault/application';
import type { SqliteDatabase } from '../../sqlite/open-database';
import { insertRows } from './sqlite-bulk-insert';
import type { BulkDocument } from './sqlite-collection';

const AUDIT_INSERT =
  'INSERT INTO audit (id, revision, tenant_id, actor_id, actor_type, entity_type, entity_id, operation, message, created_at, created_ms)';
const AUDIT_WIDTH = 11;

const createdMs = (createdAt: string): number | null => {
  const ms = Date.parse(createdAt);
  return Number.isFinite(ms) ? ms : null;
};

/** auditTable's bulkInsert: `docs` are entries absent from the file, in log order. */
export function bulkInsertAudit(db: SqliteDatabase, docs: BulkDocument[]): void {
  const values: unknown[] = [];
  for (const { id, revision, doc: raw } of docs) {
    const doc = raw as unknown as AuditDocument;
    values.push(
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
    );
  }
  insertRows(db, AUDIT_INSERT, AUDIT_WIDTH, values);
}
