// Webhooks and their deliveries in the embedded read model. A webhook row is the webhook record (its signing secret
// sealed), keyed by webhookKey(tenant, id); a delivery row is one event's delivery to one webhook as its last attempt
// left it (ids, counts, statuses and times), keyed by the webhook and the event id.
import { webhookKey } from '@vault/domain';
import type { DeliveryDocument, DeliveryReadModel, Page, PageRequest, WebhookDocument, WebhookReadModel } from '@vault/application';
import { statement } from '../../sqlite/open-database';
import { documentTable } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

export const webhooksTable = documentTable(
  'webhooks',
  {
    tenant_id: { type: 'TEXT', value: (d) => d.tenant_id as string },
    webhook_id: { type: 'TEXT', value: (d) => d.id as string },
    created_at: { type: 'TEXT', value: (d) => d.created_at as string },
  },
  ['CREATE INDEX IF NOT EXISTS webhooks_tenant_created ON webhooks (tenant_id, created_at DESC, webhook_id)'],
);

/** An encoded log position (`commit:prepare`) as text that sorts as the position does. */
export const sortablePosition = (position: string): string =>
  position
    .split(':')
    .map((part) => part.padStart(20, '0'))
    .join(':');

export const webhookDeliveriesTable = documentTable(
  'webhook_deliveries',
  {
    tenant_id: { type: 'TEXT', value: (d) => d.tenant_id as string },
    webhook_id: { type: 'TEXT', value: (d) => d.webhook_id as string },
    position_sort: { type: 'TEXT', value: (d) => sortablePosition(d.position as string) },
  },
  ['CREATE INDEX IF NOT EXISTS webhook_deliveries_order ON webhook_deliveries (tenant_id, webhook_id, position_sort DESC)'],
);

export class SqliteWebhookReadModel implements WebhookReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async get(tenantId: string, id: string): Promise<WebhookDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM webhooks WHERE id = ? AND tenant_id = ?').get(webhookKey(tenantId, id), tenantId) as
      | { doc: string }
      | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async list(tenantId: string, { page, size }: PageRequest): Promise<Page<WebhookDocument>> {
    const db = this.model.database;
    const total = (statement(db, 'SELECT COUNT(*) AS n FROM webhooks WHERE tenant_id = ?').get(tenantId) as { n: number }).n;
    const rows = statement(db, 'SELECT doc FROM webhooks WHERE tenant_id = ? ORDER BY created_at DESC, webhook_id LIMIT ? OFFSET ?').all(
      tenantId,
      size,
      (page - 1) * size,
    ) as Array<{ doc: string }>;
    return { total, items: rows.map((r) => JSON.parse(r.doc)) };
  }

  async all(): Promise<WebhookDocument[]> {
    const rows = statement(this.model.database, 'SELECT doc FROM webhooks').all() as Array<{ doc: string }>;
    return rows.map((r) => JSON.parse(r.doc));
  }
}

export class SqliteDeliveryReadModel implements DeliveryReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async list(tenantId: string, webhookId: string, { page, size }: PageRequest): Promise<Page<DeliveryDocument>> {
    const db = this.model.database;
    const total = (statement(db, 'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE tenant_id = ? AND webhook_id = ?').get(tenantId, webhookId) as { n: number }).n;
    const rows = statement(
      db,
      'SELECT doc FROM webhook_deliveries WHERE tenant_id = ? AND webhook_id = ? ORDER BY position_sort DESC, id LIMIT ? OFFSET ?',
    ).all(tenantId, webhookId, size, (page - 1) * size) as Array<{ doc: string }>;
    return { total, items: rows.map((r) => JSON.parse(r.doc)) };
  }
}
