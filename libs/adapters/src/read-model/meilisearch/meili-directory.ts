// Tenants and applications in the Meilisearch read model, and the queries the API asks of them.
// Every value in a filter goes through meiliQuote, and a tenant filter is always its own element of the filter array,
// so nothing in another element (such as a user's `OR`) can widen it.
import type {
  ApplicationDocument,
  ApplicationReadModel,
  Page,
  PageRequest,
  TenantDocument,
  TenantReadModel,
} from '@vault/application';
import type { RecordAny } from 'meilisearch';
import { epochMs, meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import type { MeiliReadModel } from './meili-read-model';

export const meiliTenantsCollection = meiliDocumentIndex(
  'tenants',
  { created_at_ms: (d) => epochMs(d.created_at) },
  { filterableAttributes: ['id'], sortableAttributes: ['created_at_ms', 'id'] },
);

export const meiliApplicationsCollection: MeiliCollection = {
  ...meiliDocumentIndex(
    'applications',
    {
      tenant_id: (d) => d.tenant_id as string,
      key_hash: (d) => d.key_hash as string,
      created_at_ms: (d) => epochMs(d.created_at),
    },
    { filterableAttributes: ['tenant_id', 'key_hash', 'id'], sortableAttributes: ['created_at_ms', 'id'] },
  ),
  tenantFilter: (tenantId) => tenantFilter(tenantId),
};

/** The tenant filter element; keep it a separate element of `filter`, never concatenated into another one. */
export const tenantFilter = (tenantId: string): string => `tenant_id = ${meiliQuote(tenantId)}`;

// String filters ignore case, so each lookup re-checks the exact value on what comes back.
const exactly = (field: string, value: string) => (hit: RecordAny) => hit[field] === value;

export class MeiliTenantReadModel implements TenantReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async get(id: string): Promise<TenantDocument | null> {
    const hits = await this.model.find('tenants', [`id = ${meiliQuote(id)}`]);
    const hit = hits.find(exactly('id', id));
    return hit ? (meiliTenantsCollection.fromDocument(hit) as unknown as TenantDocument) : null;
  }

  async count(): Promise<number> {
    // page/hitsPerPage makes totalHits exhaustive (estimatedTotalHits is not).
    const response = await this.model.index('tenants').search(null, { page: 1, hitsPerPage: 1, attributesToRetrieve: ['id'] });
    return response.totalHits;
  }
}

export class MeiliApplicationReadModel implements ApplicationReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async findByKeyHash(keyHash: string): Promise<ApplicationDocument | null> {
    const hits = await this.model.find('applications', [`key_hash = ${meiliQuote(keyHash)}`]);
    return toApplication(hits.find(exactly('key_hash', keyHash)));
  }

  async get(tenantId: string, id: string): Promise<ApplicationDocument | null> {
    const hits = await this.model.find('applications', [tenantFilter(tenantId), `id = ${meiliQuote(id)}`]);
    return toApplication(hits.find((hit) => exactly('tenant_id', tenantId)(hit) && exactly('id', id)(hit)));
  }

  async list(tenantId: string, { page, size }: PageRequest): Promise<Page<ApplicationDocument>> {
    const response = await this.model.index('applications').search(null, {
      filter: [tenantFilter(tenantId)],
      sort: ['created_at_ms:desc', 'id:asc'],
      page,
      hitsPerPage: size,
    });
    // Tenant ids are generated lower-case UUIDs, so a case-insensitive match is exact; the check only guards that.
    const items = response.hits.filter(exactly('tenant_id', tenantId)).map((hit) => toApplication(hit)!);
    return { items, total: response.totalHits };
  }
}

const toApplication = (hit: RecordAny | undefined): ApplicationDocument | null =>
  hit ? (meiliApplicationsCollection.fromDocument(hit) as unknown as ApplicationDocument) : null;
