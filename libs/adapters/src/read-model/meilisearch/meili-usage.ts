// The usage report in the Meilisearch read model, the twin of sqlite-usage.ts: one index per set of the usage
// projections (usage.projection.ts). Meilisearch has no transactions to keep counters beside the documents, but it
// keeps a bitmap of the documents per filterable value as it indexes them: the report asks for the facet distribution
// of `type` over the tenant's live tokens (a bitmap intersection per type), the newest token of each type (a sorted
// page of one), and the exact total of the tenant's documents of the month. No document is read but one per type.
//
// Meilisearch lower-cases and normalizes the strings it filters on, so the tenant is filtered on as the hex of its id
// (exact under those rules, as meili-formulas.ts explains); types and months are lower-case ASCII already.
// Earlier months' documents are not pruned here: the report reads the current month only.
import type { UsageCounts, UsageReportReadModel, UsageTokenDocument } from '@vault/application';
import { epochMs, meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import type { MeiliReadModel } from './meili-read-model';

const TOKENS = 'usage_tokens';
const ACTIVE = 'usage_active';

const tenantKey = (tenantId: string): string => Buffer.from(tenantId, 'utf8').toString('hex');
/** The tenant condition; keep it its own element of `filter`, never concatenated into another one. */
const tenantFilter = (tenantId: string): string => `tenant_key = ${meiliQuote(tenantKey(tenantId))}`;
const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

export const meiliUsageTokensCollection: MeiliCollection = {
  ...meiliDocumentIndex(
    TOKENS,
    { tenant_key: (d) => tenantKey(stringOf(d.tenant_id)), type: (d) => stringOf(d.type), created_ms: (d) => epochMs(d.created_at) },
    { filterableAttributes: ['tenant_key', 'type'], sortableAttributes: ['created_ms'] },
  ),
  tenantFilter,
};

export const meiliUsageActiveCollection: MeiliCollection = {
  ...meiliDocumentIndex(
    ACTIVE,
    { tenant_key: (d) => tenantKey(stringOf(d.tenant_id)), month: (d) => stringOf(d.month) },
    { filterableAttributes: ['tenant_key', 'month'], sortableAttributes: [] },
  ),
  tenantFilter,
};

export class MeiliUsageReportReadModel implements UsageReportReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async usage(tenantId: string, month: string): Promise<UsageCounts> {
    const tokens = this.model.index(TOKENS);
    const [live, active] = await Promise.all([
      tokens.search(null, { filter: [tenantFilter(tenantId)], facets: ['type'], limit: 0 }),
      // page/hitsPerPage makes totalHits exact (maxTotalHits is raised for every index).
      this.model.index(ACTIVE).search(null, { filter: [tenantFilter(tenantId), `month = ${meiliQuote(month)}`], page: 1, hitsPerPage: 1, attributesToRetrieve: ['id'] }),
    ]);
    const counts = Object.entries(live.facetDistribution?.type ?? {}).filter(([, count]) => count > 0);
    const newest = await Promise.all(
      counts.map(async ([type]) => {
        const page = await tokens.search(null, {
          filter: [tenantFilter(tenantId), `type = ${meiliQuote(type)}`],
          sort: ['created_ms:desc'],
          limit: 1,
          attributesToRetrieve: ['doc'],
        });
        const doc = page.hits[0] && (meiliUsageTokensCollection.fromDocument(page.hits[0]) as unknown as UsageTokenDocument);
        return doc?.created_at ?? null;
      }),
    );
    const metrics: UsageCounts['metrics_by_type'] = {};
    counts.forEach(([type, count], i) => {
      // A type whose last token went between the two requests is left out, as it would be a moment later.
      if (newest[i] !== null) metrics[type] = { count, last_created_at: newest[i]! };
    });
    return { metrics_by_type: sortedByType(metrics), monthly_active_tokens: active.totalHits ?? 0 };
  }
}

const sortedByType = (metrics: UsageCounts['metrics_by_type']): UsageCounts['metrics_by_type'] =>
  Object.fromEntries(Object.entries(metrics).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
