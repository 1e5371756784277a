// The webhook and delivery read models every adapter must provide, fed through the real projections: a webhook by its
// tenant (ids are unique within a tenant only), lists newest first with exact totals and pages, every live webhook of
// every tenant for the dispatcher, deletes, a deleted tenant's webhooks and deliveries gone with it; deliveries listed
// with the latest event in the log first (log positions compared as numbers, whatever their digit counts), one
// webhook's only, and an event's latest recorded attempt replacing the earlier ones.
import { randomUUID } from 'node:crypto';
import {
  applyBatch,
  deliveriesProjection,
  ProjectionSet,
  tenantsProjection,
  webhooksProjection,
  type DeliveryDocument,
  type DeliveryReadModel,
  type ProjectionStore,
  type RecordedEvent,
  type WebhookDocument,
  type WebhookReadModel,
} from '@vault/application';
import {
  deliveryStream,
  tenantStream,
  webhookStream,
  type TenantEvent,
  type WebhookCreatedData,
  type WebhookDeliveryRecordedData,
  type WebhookEvent,
} from '@vault/domain';

/** The store holds the `tenants` collection too: a deleted tenant's purge goes by its tombstone there. */
export interface WebhookReadModelUnderTest {
  projectionStore: ProjectionStore;
  webhooks: WebhookReadModel;
  deliveries: DeliveryReadModel;
}

type Event = Pick<RecordedEvent, 'type' | 'data'> & { streamId: string; tenantId: string };

const CREATED_AT = '2024-05-01T10:00:00.000Z';
const MODIFIED_AT = '2024-05-02T10:00:00.000Z';

/** The minute `n` of a day: created_at values whose order is known. */
const at = (n: number): string => new Date(Date.UTC(2024, 4, 1, 10, n)).toISOString();

/** What WebhookCreated carries; the signing secret sealed (here merely a marker: the read model never opens it). */
export function aWebhook(overrides: Partial<WebhookCreatedData> = {}): WebhookCreatedData {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    tenant_id: randomUUID(),
    name: 'Webhook',
    url: 'https://hooks.example.com/vault',
    events: ['token.created', 'token.deleted'],
    enabled: true,
    sealed_secret: { v: 1, alg: 'AES-256-GCM', key_ref: `webhook:${id}`, iv: 'aXY=', ciphertext: 'c2VhbGVk', tag: 'dGFn' },
    created_by: 'app',
    created_at: CREATED_AT,
    ...overrides,
  };
}

/** The document a created webhook is: the record, never updated yet. */
const asCreated = (webhook: WebhookCreatedData): WebhookDocument => ({ ...webhook, modified_by: null, modified_at: null });

const created = (webhook: WebhookCreatedData): Event => ({
  type: 'WebhookCreated',
  data: webhook,
  streamId: webhookStream(webhook.tenant_id, webhook.id),
  tenantId: webhook.tenant_id,
});

/** WebhookUpdated carries the whole webhook after the change. */
const updated = (webhook: WebhookCreatedData, changes: Partial<WebhookCreatedData>): Event => {
  const { created_by: _by, created_at: _at, ...fields } = { ...webhook, ...changes };
  return {
    type: 'WebhookUpdated',
    data: { ...fields, modified_by: 'editor', modified_at: MODIFIED_AT } satisfies Extract<WebhookEvent, { type: 'WebhookUpdated' }>['data'],
    streamId: webhookStream(webhook.tenant_id, webhook.id),
    tenantId: webhook.tenant_id,
  };
};

const deleted = (webhook: WebhookCreatedData): Event => ({
  type: 'WebhookDeleted',
  data: { id: webhook.id, tenant_id: webhook.tenant_id, deleted_by: 'app', deleted_at: MODIFIED_AT },
  streamId: webhookStream(webhook.tenant_id, webhook.id),
  tenantId: webhook.tenant_id,
});

/** One attempt's outcome for the event at `position` (`commit:prepare`), as the webhook runner records it. */
export function anOutcome(webhook: Pick<WebhookCreatedData, 'id' | 'tenant_id'>, position: string, overrides: Partial<WebhookDeliveryRecordedData> = {}): WebhookDeliveryRecordedData {
  return {
    webhook_id: webhook.id,
    tenant_id: webhook.tenant_id,
    event_id: randomUUID(),
    event_type: 'token.created',
    position,
    resume_after: null,
    state: 'delivered',
    attempts: 1,
    last_status: 204,
    first_attempt_at: CREATED_AT,
    attempted_at: CREATED_AT,
    next_attempt_at: null,
    ...overrides,
  };
}

const recorded = (outcome: WebhookDeliveryRecordedData): Event => ({
  type: 'WebhookDeliveryRecorded',
  data: outcome,
  streamId: deliveryStream(outcome.tenant_id, outcome.webhook_id),
  tenantId: outcome.tenant_id,
});

/** The document an outcome is: its ids, counts, statuses and times, without the runner's resume position. */
const asDelivery = ({ resume_after: _resume, ...outcome }: WebhookDeliveryRecordedData): DeliveryDocument => outcome;

const tenantEvent = (type: 'TenantCreated' | 'TenantDeleted', id: string): Event => ({
  type,
  data: (type === 'TenantCreated'
    ? { id, name: 'Tenant', created_by: 'cli', created_at: CREATED_AT }
    : { id, deleted_by: 'cli', deleted_at: MODIFIED_AT }) satisfies TenantEvent['data'],
  streamId: tenantStream(id),
  tenantId: id,
});

const ALL = { page: 1, size: 100 };

export function describeWebhookReadModelContract(
  name: string,
  open: () => Promise<{ readModels: WebhookReadModelUnderTest; dispose(): Promise<void> }>,
): void {
  describe(`${name} webhook read model contract`, () => {
    let rm: WebhookReadModelUnderTest;
    let dispose: () => Promise<void>;
    let position = 1n;
    const projections = new ProjectionSet([tenantsProjection, webhooksProjection, deliveriesProjection]);

    beforeAll(async () => {
      ({ readModels: rm, dispose } = await open());
      const checkpoint = await rm.projectionStore.checkpoint();
      position = (checkpoint?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    const revisions = new Map<string, bigint>();
    /** Appends the events to the log (in this order, as one batch) and lets the projections apply them as the projector does. */
    const record = async (...events: Event[]): Promise<void> => {
      const recordedEvents = events.map(({ streamId, tenantId, ...event }): RecordedEvent => {
        position += 1n;
        const revision = revisions.has(streamId) ? revisions.get(streamId)! + 1n : 0n;
        revisions.set(streamId, revision);
        const metadata = { tenant_id: tenantId, actor: { type: 'application' as const, id: 'app' }, timestamp: CREATED_AT, correlation_id: 'c' };
        return { ...event, metadata, streamId, revision, position: { commit: position, prepare: position } };
      });
      const changes = await applyBatch(recordedEvents, projections, rm.projectionStore);
      await rm.projectionStore.commit(changes, recordedEvents[recordedEvents.length - 1].position);
    };
    const ids = async (tenant: string, page = 1, size = 100) => (await rm.webhooks.list(tenant, { page, size })).items.map((w) => w.id);
    const deliveredEvents = async (webhook: Pick<WebhookCreatedData, 'id' | 'tenant_id'>, page = 1, size = 100) =>
      (await rm.deliveries.list(webhook.tenant_id, webhook.id, { page, size })).items.map((d) => d.event_id);

    describe('webhooks', () => {
      it("returns a tenant's webhook as projected, and another tenant's as absent", async () => {
        const webhook = aWebhook({ name: 'Mine', enabled: false, events: ['proxy.created', 'tenant.updated'] });
        await record(created(webhook));
        expect(await rm.webhooks.get(webhook.tenant_id, webhook.id)).toEqual(asCreated(webhook));
        expect(await rm.webhooks.get(randomUUID(), webhook.id)).toBeNull();
        expect(await rm.webhooks.get(webhook.tenant_id, randomUUID())).toBeNull();
        expect(await rm.webhooks.get(`${webhook.tenant_id}" OR tenant_id != "x`, webhook.id)).toBeNull();
        expect(await rm.webhooks.get(webhook.tenant_id.toUpperCase(), webhook.id)).toBeNull();
        expect(await rm.webhooks.list(randomUUID(), ALL)).toEqual({ total: 0, items: [] });
      });

      it("keeps two tenants' webhooks that share an id apart", async () => {
        const id = randomUUID();
        const [a, b] = [aWebhook({ id, name: 'In A' }), aWebhook({ id, name: 'In B' })];
        await record(created(a), created(b));
        expect(await rm.webhooks.get(a.tenant_id, id)).toEqual(asCreated(a));
        expect(await rm.webhooks.get(b.tenant_id, id)).toEqual(asCreated(b));
        await record(deleted(a));
        expect(await rm.webhooks.get(a.tenant_id, id)).toBeNull();
        expect(await rm.webhooks.get(b.tenant_id, id)).toEqual(asCreated(b));
        expect(await rm.webhooks.list(b.tenant_id, ALL)).toEqual({ total: 1, items: [asCreated(b)] });
      });

      it('answers an update whole: its new settings, its creation and sealed secret kept', async () => {
        const webhook = aWebhook({ name: 'Before' });
        await record(created(webhook), updated(webhook, { name: 'After', url: 'https://hooks.example.com/v2', events: ['tenant.updated'], enabled: false }));
        const after: WebhookDocument = {
          ...asCreated(webhook),
          name: 'After',
          url: 'https://hooks.example.com/v2',
          events: ['tenant.updated'],
          enabled: false,
          modified_by: 'editor',
          modified_at: MODIFIED_AT,
        };
        expect(await rm.webhooks.get(webhook.tenant_id, webhook.id)).toEqual(after);
        expect(await rm.webhooks.list(webhook.tenant_id, ALL)).toEqual({ total: 1, items: [after] });
      });

      it('lists newest first, then by id, with exact totals and pages', async () => {
        const tenant = randomUUID();
        const [id1, id2] = [randomUUID(), randomUUID()].sort();
        // Recorded out of order: the list follows created_at, not the log.
        await record(
          created(aWebhook({ tenant_id: tenant, name: 'oldest', created_at: at(1) })),
          created(aWebhook({ tenant_id: tenant, name: 'newest', created_at: at(9) })),
          created(aWebhook({ tenant_id: tenant, id: id2, name: 'middle 2', created_at: at(5) })),
          created(aWebhook({ tenant_id: tenant, id: id1, name: 'middle 1', created_at: at(5) })),
          created(aWebhook({ name: 'another tenant', created_at: at(7) })),
        );
        const all = await rm.webhooks.list(tenant, ALL);
        expect(all.items.map((w) => w.name)).toEqual(['newest', 'middle 1', 'middle 2', 'oldest']);
        expect(all.items.slice(1, 3).map((w) => w.id)).toEqual([id1, id2]);
        expect(all.total).toBe(4);
        const second = await rm.webhooks.list(tenant, { page: 2, size: 3 });
        expect(second).toEqual({ total: 4, items: [all.items[3]] });
        expect((await rm.webhooks.list(tenant, { page: 1, size: 2 })).items.map((w) => w.name)).toEqual(['newest', 'middle 1']);
        expect(await rm.webhooks.list(tenant, { page: 9, size: 3 })).toEqual({ total: 4, items: [] });
      });

      it('forgets a deleted webhook: by id, in lists and in every webhook the dispatcher starts from', async () => {
        const webhook = aWebhook();
        const kept = aWebhook({ tenant_id: webhook.tenant_id, created_at: at(2) });
        await record(created(webhook), created(kept));
        expect((await rm.webhooks.all()).map((w) => w.id)).toEqual(expect.arrayContaining([webhook.id, kept.id]));
        await record(deleted(webhook));
        expect(await rm.webhooks.get(webhook.tenant_id, webhook.id)).toBeNull();
        expect(await rm.webhooks.list(webhook.tenant_id, ALL)).toEqual({ total: 1, items: [asCreated(kept)] });
        const all = await rm.webhooks.all();
        expect(all.map((w) => w.id)).not.toContain(webhook.id);
        expect(all).toContainEqual(asCreated(kept));
      });

      it('gives every live webhook of every tenant, each once and as projected, to the dispatcher', async () => {
        const id = randomUUID();
        const mine = [aWebhook({ id }), aWebhook({ id }), aWebhook({ enabled: false })];
        const changed = aWebhook({ name: 'before' });
        await record(...mine.map(created), created(changed), updated(changed, { name: 'after' }));
        const all = await rm.webhooks.all();
        for (const webhook of mine) expect(all.filter((w) => w.id === webhook.id && w.tenant_id === webhook.tenant_id)).toEqual([asCreated(webhook)]);
        expect(all.filter((w) => w.id === changed.id)).toEqual([expect.objectContaining({ name: 'after', modified_at: MODIFIED_AT })]);
      });
    });

    describe('deliveries', () => {
      it('lists a webhook\'s deliveries with the latest event in the log first, with exact totals and pages', async () => {
        const webhook = aWebhook();
        const outcomes = ['3:3', '1:1', '7:7', '5:5', '2:2'].map((p) => anOutcome(webhook, p));
        await record(created(webhook), ...outcomes.map(recorded));
        const newestFirst = [...outcomes].sort((a, b) => Number(b.position.split(':')[0]) - Number(a.position.split(':')[0]));
        const all = await rm.deliveries.list(webhook.tenant_id, webhook.id, ALL);
        expect(all).toEqual({ total: 5, items: newestFirst.map(asDelivery) });
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, { page: 2, size: 2 })).toEqual({ total: 5, items: newestFirst.slice(2, 4).map(asDelivery) });
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, { page: 3, size: 2 })).toEqual({ total: 5, items: [asDelivery(newestFirst[4])] });
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, { page: 4, size: 2 })).toEqual({ total: 5, items: [] });
      });

      it('orders positions as numbers, whatever their digit counts (10:10 after 9:9, 100:99 after 99:100)', async () => {
        const webhook = aWebhook();
        const positions = ['9:9', '10:10', '99:100', '100:99', '1000:5', '2:20000000000'];
        const outcomes = positions.map((p) => anOutcome(webhook, p, { event_type: 'token.updated' }));
        await record(created(webhook), ...outcomes.map(recorded));
        const byPosition = new Map(outcomes.map((o) => [o.event_id, o.position]));
        const listed = (await deliveredEvents(webhook)).map((id) => byPosition.get(id));
        expect(listed).toEqual(['1000:5', '100:99', '99:100', '10:10', '9:9', '2:20000000000']);
        expect((await deliveredEvents(webhook, 1, 1)).map((id) => byPosition.get(id))).toEqual(['1000:5']);
        expect((await deliveredEvents(webhook, 5, 1)).map((id) => byPosition.get(id))).toEqual(['9:9']);
      });

      it('orders by the commit first, then the prepare position', async () => {
        const webhook = aWebhook();
        const outcomes = ['12:3', '12:10', '12:9', '11:50'].map((p) => anOutcome(webhook, p));
        await record(created(webhook), ...outcomes.map(recorded));
        const byPosition = new Map(outcomes.map((o) => [o.event_id, o.position]));
        expect((await deliveredEvents(webhook)).map((id) => byPosition.get(id))).toEqual(['12:10', '12:9', '12:3', '11:50']);
      });

      it('never lists another webhook\'s deliveries, nor those of another tenant\'s webhook with the same id', async () => {
        const webhook = aWebhook();
        const sibling = aWebhook({ tenant_id: webhook.tenant_id });
        const twin = aWebhook({ id: webhook.id });
        const mine = anOutcome(webhook, '40:40');
        await record(
          created(webhook),
          created(sibling),
          created(twin),
          recorded(mine),
          recorded(anOutcome(sibling, '41:41')),
          recorded(anOutcome(twin, '42:42')),
          recorded(anOutcome(twin, '43:43')),
        );
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, ALL)).toEqual({ total: 1, items: [asDelivery(mine)] });
        expect((await rm.deliveries.list(twin.tenant_id, twin.id, ALL)).total).toBe(2);
        expect((await rm.deliveries.list(sibling.tenant_id, sibling.id, ALL)).total).toBe(1);
        expect(await rm.deliveries.list(randomUUID(), webhook.id, ALL)).toEqual({ total: 0, items: [] });
        expect(await rm.deliveries.list(webhook.tenant_id, randomUUID(), ALL)).toEqual({ total: 0, items: [] });
        expect(await rm.deliveries.list(webhook.tenant_id.toUpperCase(), webhook.id.toUpperCase(), ALL)).toEqual({ total: 0, items: [] });
        expect(await rm.deliveries.list(`${webhook.tenant_id}" OR tenant_id != "x`, webhook.id, ALL)).toEqual({ total: 0, items: [] });
      });

      it("keeps an event's latest outcome only: a retry replaces the pending attempt, in place and counted once", async () => {
        const webhook = aWebhook();
        const earlier = anOutcome(webhook, '20:20');
        const later = anOutcome(webhook, '30:30');
        const pending = anOutcome(webhook, '25:25', {
          state: 'pending',
          attempts: 1,
          last_status: 503,
          attempted_at: at(1),
          next_attempt_at: at(2),
        });
        await record(created(webhook), recorded(earlier), recorded(pending), recorded(later));
        expect((await rm.deliveries.list(webhook.tenant_id, webhook.id, ALL)).items).toEqual([later, pending, earlier].map(asDelivery));

        const timedOut = { ...pending, attempts: 2, last_status: null, attempted_at: at(2), next_attempt_at: at(6) };
        const delivered = { ...pending, state: 'delivered' as const, attempts: 3, last_status: 200, attempted_at: at(6), next_attempt_at: null };
        await record(recorded(timedOut));
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, ALL)).toEqual({ total: 3, items: [later, timedOut, earlier].map(asDelivery) });
        await record(recorded(delivered));
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, ALL)).toEqual({ total: 3, items: [later, delivered, earlier].map(asDelivery) });
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, { page: 2, size: 1 })).toEqual({ total: 3, items: [asDelivery(delivered)] });
      });

      it('keeps a failed outcome as recorded: no status, every attempt counted', async () => {
        const webhook = aWebhook();
        const failed = anOutcome(webhook, '50:50', { state: 'failed', attempts: 17, last_status: null, event_type: 'tenant.updated', attempted_at: at(30) });
        await record(created(webhook), recorded(failed));
        expect(await rm.deliveries.list(webhook.tenant_id, webhook.id, ALL)).toEqual({ total: 1, items: [asDelivery(failed)] });
      });
    });

    it("drops a deleted tenant's webhooks and deliveries, and its writes still in flight, and no other tenant's", async () => {
      const [gone, kept] = [randomUUID(), randomUUID()];
      const doomed = aWebhook({ tenant_id: gone, name: 'Doomed' });
      const survivor = aWebhook({ tenant_id: kept, name: 'Survivor' });
      const survivorOutcome = anOutcome(survivor, '60:60');
      await record(
        tenantEvent('TenantCreated', gone),
        tenantEvent('TenantCreated', kept),
        created(doomed),
        created(survivor),
        recorded(anOutcome(doomed, '61:61')),
        recorded(survivorOutcome),
      );
      expect((await rm.deliveries.list(gone, doomed.id, ALL)).total).toBe(1);
      await record(tenantEvent('TenantDeleted', gone));
      const late = aWebhook({ tenant_id: gone, name: 'Late' });
      await record(updated(doomed, { name: 'Revived' }), created(late), recorded(anOutcome(doomed, '62:62')));
      expect(await rm.webhooks.get(gone, doomed.id)).toBeNull();
      expect(await rm.webhooks.get(gone, late.id)).toBeNull();
      expect(await rm.webhooks.list(gone, ALL)).toEqual({ total: 0, items: [] });
      expect(await rm.deliveries.list(gone, doomed.id, ALL)).toEqual({ total: 0, items: [] });
      expect((await rm.webhooks.all()).filter((w) => w.tenant_id === gone)).toEqual([]);
      expect(await rm.webhooks.get(kept, survivor.id)).toEqual(asCreated(survivor));
      expect(await rm.deliveries.list(kept, survivor.id, ALL)).toEqual({ total: 1, items: [asDelivery(survivorOutcome)] });
      expect(await ids(kept)).toEqual([survivor.id]);
    });
  });
}
