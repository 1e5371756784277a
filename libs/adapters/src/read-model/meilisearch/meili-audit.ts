// The audit log in the Meilisearch read model, the twin of sqlite-audit.ts: one document per entry, filtered by tenant,
// entity, operation and time (epoch milliseconds, for ranges), sorted by time and then log order.
//
// Every string this index filters on is exact under Meilisearch's normalization (meili-formulas.ts explains it): tenant
// and entity ids are lower-case UUIDs (GET /logs lower-cases the entity_id it is given), entity types and operations are
// fixed lower-case words. Hits are still checked against the tenant before they are returned.
import { auditEntryFrom, type AuditDocument, type AuditListQuery, type AuditReadModel, type Page } from '@vault/application';
import { ACCESS_OPERATIONS, type AuditEntry } from '@vault/domain';
import type { RecordAny } from 'meilisearch';
import { epochMs, meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import type { MeiliReadModel } from './meili-read-model';

const COLLECTION = 'audit';
const SORT = ['created_ms:desc', 'sort_key:desc'];
const FIELDS = ['id', 'tenant_id', 'doc'];
// A retention sweep of millions of entries is one task; the API process does not wait on it for a request.
const DROP_WAIT = { timeout: 600_000, interval: 200 };

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const auditIndex = meiliDocumentIndex(
  COLLECTION,
  {
    tenant_id: (d) => stringOrNull(d.tenant_id),
    entity_type: (d) => stringOrNull(d.entity_type),
    entity_id: (d) => stringOrNull(d.entity_id),
    operation: (d) => stringOrNull(d.operation),
    created_ms: (d) => epochMs(d.created_at),
    sort_key: (d) => stringOrNull(d.sort_key),
  },
  {
    filterableAttributes: ['tenant_id', 'entity_type', 'entity_id', 'operation', 'created_ms'],
    sortableAttributes: ['created_ms', 'sort_key'],
  },
);

/** The tenant condition; keep it its own element of `filter`, never concatenated into another one. */
const tenantFilter = (tenantId: string): string => `tenant_id = ${meiliQuote(tenantId)}`;

// A deleted tenant's entries go with its other documents (the store purges by this filter).
export const meiliAuditCollection: MeiliCollection = { ...auditIndex, tenantFilter };

const accessFilter = `operation IN [${ACCESS_OPERATIONS.map(meiliQuote).join(', ')}]`;

const toEntry = (hit: RecordAny): AuditEntry => auditEntryFrom(meiliAuditCollection.fromDocument(hit) as unknown as AuditDocument);

export class MeiliAuditReadModel implements AuditReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async list(tenantId: string, query: AuditListQuery): Promise<Page<AuditEntry>> {
    const filter = [tenantFilter(tenantId)];
    if (query.entity_type !== undefined) filter.push(`entity_type = ${meiliQuote(query.entity_type)}`);
    if (query.entity_id !== undefined) filter.push(`entity_id = ${meiliQuote(query.entity_id)}`);
    if (query.start_date !== undefined) filter.push(`created_ms >= ${query.start_date.getTime()}`);
    if (query.end_date !== undefined) filter.push(`created_ms <= ${query.end_date.getTime()}`);
    // page/hitsPerPage makes totalHits exact (maxTotalHits is raised for every index).
    const response = await this.model.index(COLLECTION).search(null, {
      filter,
      sort: SORT,
      page: query.page,
      hitsPerPage: query.size,
      attributesToRetrieve: FIELDS,
    });
    return { total: response.totalHits, items: response.hits.filter((hit) => hit.tenant_id === tenantId).map(toEntry) };
  }

  async dropAccessRecordsBefore(cutoff: Date): Promise<number> {
    const task = await this.model
      .index(COLLECTION)
      .deleteDocuments({ filter: [accessFilter, `created_ms < ${cutoff.getTime()}`] })
      .waitTask(DROP_WAIT);
    if (task.status !== 'succeeded') {
      const reason = task.error ? `${task.error.code}: ${task.error.message}` : task.status;
      throw new Error(`Meilisearch task ${task.uid} (audit retention) did not succeed: ${reason}`);
    }
    return (task.details as { deletedDocuments?: number } | undefined)?.deletedDocuments ?? 0;
  }
}
