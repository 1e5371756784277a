// The rebuild's rows for new audit entries: the rows auditTable.upsert writes for entries not in the file yet, as
// multi-row INSERTs (sqlite-rebuild-store.spec.ts holds them to upsert's rows).
import type { AuditDocument } from '@vault/application';
import type { BulkRows } from './bulk-writer-thread';
import { auditRowValues } from './sqlite-audit';
import type { BulkDocument, BulkWriter } from './sqlite-collection';

const AUDIT_INSERT =
  'INSERT INTO audit (id, revision, tenant_id, actor_id, actor_type, entity_type, entity_id, operation, message, created_at, created_ms)';
const AUDIT_WIDTH = 11;

/** auditTable's bulk writer: rows for entries absent from the file. */
export const auditBulkWriter = (): BulkWriter => ({
  rowsOf(docs: BulkDocument[]): BulkRows[] {
    const values: unknown[] = [];
    for (const { id, revision, doc: raw } of docs) {
      const doc = raw as unknown as AuditDocument;
      values.push(...auditRowValues(id, revision, doc));
    }
    return [{ head: AUDIT_INSERT, width: AUDIT_WIDTH, values }];
  },
});
