// Webhooks and their deliveries in the Meilisearch read model, the twin of sqlite-webhooks.ts. A webhook document is
// the webhook record (its signing secret sealed), keyed by webhookKey(tenant, id); a delivery document is one event's
// delivery to one webhook as its last attempt left it. Tenant ids and webhook ids are values the server compares
// case-insensitively, so every hit's raw values are checked again, and a page with a foreign hit is cut exactly from
// the full list instead.
import { webhookKey } from '@vault/domain';
import type { DeliveryDocument, DeliveryReadModel, Page, PageRequest, WebhookDocument, WebhookReadModel } from '@vault/application';
import type { RecordAny } from 'meilisearch';
import { meiliDocumentIndex, meiliQuote, type MeiliCollection } from './meili-collection';
import { fetchAll } from './meili-tasks';
import type { MeiliReadModel } from './meili-read-model';

const WEBHOOKS = 'webhooks';
const DELIVERIES = 'webhook_deliveries';

const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '');

/** An encoded log position (`commit:prepare`) as text that sorts as the position does. */
const sortablePosition = (position: string): string =>
  position
    .split(':')
    .map((part) => part.padStart(20, '0'))
    .join(':');

/** Milliseconds since the epoch of an ISO 8601 text: a number Meilisearch sorts exactly. */
const epochOf = (value: unknown): number => {
  const ms = Date.parse(stringOf(value));
  return Number.isFinite(ms) ? ms : 0;
};

const webhooksIndex = meiliDocumentIndex(
  WEBHOOKS,
  {
    tenant_id: (d) => stringOf(d.tenant_id),
    webhook_id: (d) => stringOf(d.id),
    created_ms: (d) => epochOf(d.created_at),
  },
  { filterableAttributes: ['tenant_id', 'id'], sortableAttributes: ['created_ms', 'webhook_id'] },
);

export const meiliWebhooksCollection: MeiliCollection = { ...webhooksIndex, tenantFilter: (tenantId) => tenantFilter(tenantId) };

const deliveriesIndex = meiliDocumentIndex(
  DELIVERIES,
  {
    tenant_id: (d) => stringOf(d.tenant_id),
    webhook_id: (d) => stringOf(d.webhook_id),
    position_sort: (d) => sortablePosition(stringOf(d.position)),
  },
  { filterableAttributes: ['tenant_id', 'webhook_id'], sortableAttributes: ['position_sort'] },
);

export const meiliDeliveriesCollection: MeiliCollection = { ...deliveriesIndex, tenantFilter: (tenantId) => tenantFilter(tenantId) };

/** The tenant condition; keep it its own element of `filter`, never concatenated into another one. */
const tenantFilter = (tenantId: string): string => `tenant_id = ${meiliQuote(tenantId)}`;

const compare = (a: string | number, b: string | number): number => (a < b ? -1 : a > b ? 1 : 0);

export class MeiliWebhookReadModel implements WebhookReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async get(tenantId: string, id: string): Promise<WebhookDocument | null> {
    const key = webhookKey(tenantId, id);
    const hits = await fetchAll(this.model.index(WEBHOOKS), [tenantFilter(tenantId), `id = ${meiliQuote(key)}`]);
    const hit = hits.find((h) => h.id === key && h.tenant_id === tenantId);
    return hit ? (meiliWebhooksCollection.fromDocument(hit) as unknown as WebhookDocument) : null;
  }

  async list(tenantId: string, { page, size }: PageRequest): Promise<Page<WebhookDocument>> {
    const response = await this.model.index(WEBHOOKS).search(null, {
      filter: [tenantFilter(tenantId)],
      sort: ['created_ms:desc', 'webhook_id:asc'],
      page,
      hitsPerPage: size,
    });
    if (response.hits.every((hit) => hit.tenant_id === tenantId)) {
      return { total: response.totalHits, items: response.hits.map((hit) => meiliWebhooksCollection.fromDocument(hit) as unknown as WebhookDocument) };
    }
    // A tenant id equal to this one but for case: the exact list, ordered and cut here.
    const all = (await fetchAll(this.model.index(WEBHOOKS), [tenantFilter(tenantId)])).filter((hit) => hit.tenant_id === tenantId);
    all.sort((a, b) => compare(b.created_ms as number, a.created_ms as number) || compare(a.webhook_id as string, b.webhook_id as string));
    return { total: all.length, items: all.slice((page - 1) * size, page * size).map((hit) => meiliWebhooksCollection.fromDocument(hit) as unknown as WebhookDocument) };
  }

  async all(): Promise<WebhookDocument[]> {
    return (await fetchAll(this.model.index(WEBHOOKS))).map((hit) => meiliWebhooksCollection.fromDocument(hit) as unknown as WebhookDocument);
  }
}

export class MeiliDeliveryReadModel implements DeliveryReadModel {
  constructor(private readonly model: MeiliReadModel) {}

  async list(tenantId: string, webhookId: string, { page, size }: PageRequest): Promise<Page<DeliveryDocument>> {
    const filter = [tenantFilter(tenantId), `webhook_id = ${meiliQuote(webhookId)}`];
    const exact = (hit: RecordAny) => hit.tenant_id === tenantId && hit.webhook_id === webhookId;
    const response = await this.model.index(DELIVERIES).search(null, { filter, sort: ['position_sort:desc'], page, hitsPerPage: size });
    if (response.hits.every(exact)) {
      return { total: response.totalHits, items: response.hits.map((hit) => meiliDeliveriesCollection.fromDocument(hit) as unknown as DeliveryDocument) };
    }
    const all = (await fetchAll(this.model.index(DELIVERIES), filter)).filter(exact);
    all.sort((a, b) => compare(b.position_sort as string, a.position_sort as string) || compare(a.id as string, b.id as string));
    return { total: all.length, items: all.slice((page - 1) * size, page * size).map((hit) => meiliDeliveriesCollection.fromDocument(hit) as unknown as DeliveryDocument) };
  }
}
