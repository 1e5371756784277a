// The audit read model every adapter must provide, fed through the real audit projection: newest first (then log order),
// every GET /logs filter with inclusive dates, exact totals and pages, tenant isolation, and retention that drops
// access records only.
import { randomUUID } from 'node:crypto';
import {
  applyBatch,
  auditProjection,
  ProjectionSet,
  tenantsProjection,
  type AuditListQuery,
  type AuditReadModel,
  type ProjectionStore,
  type RecordedEvent,
} from '@vault/application';
import type { AccessRecordedData, Actor, AuditEntry } from '@vault/domain';

/** The store holds the `tenants` collection too: a deleted tenant's purge goes by its tombstone there. */
export interface AuditReadModelUnderTest {
  projectionStore: ProjectionStore;
  audit: AuditReadModel;
}

/** An event to record; without a stream, it gets a stream of its own. */
type Event = Pick<RecordedEvent, 'type' | 'data' | 'metadata'> & { streamId?: string };

const appActor = (id: string): Actor => ({ type: 'application', id });
const metadata = (tenant: string | null, actor: Actor, at: string) => ({ tenant_id: tenant, actor, timestamp: at, correlation_id: 'c' });

/** A token write of `tenant` by application `actor` at `at`. */
const tokenWrite = (type: 'TokenCreated' | 'TokenDeleted', tenant: string, id: string, at: string, actor = randomUUID()): Event => ({
  type,
  data:
    type === 'TokenCreated'
      ? { id, tenant_id: tenant, created_by: actor, created_at: at }
      : { id, tenant_id: tenant, reason: 'requested', deleted_by: actor, deleted_at: at },
  metadata: metadata(tenant, appActor(actor), at),
});

const accessRecord = (tenant: string, data: Partial<AccessRecordedData> & { created_at: string }, actor = randomUUID()): Event => ({
  type: 'AccessRecorded',
  data: { tenant_id: tenant, entity_type: 'token', entity_id: randomUUID(), operation: 'reveal', via: 'get', ...data },
  metadata: metadata(tenant, appActor(actor), data.created_at),
});

const applicationWrite = (tenant: string, id: string, at: string): Event => ({
  type: 'ApplicationKeyRegenerated',
  data: { id, tenant_id: tenant, key_hash: 'a-key-hash', modified_by: 'x', modified_at: at },
  metadata: metadata(tenant, { type: 'operator', id: 'cli' }, at),
});

export function describeAuditReadModelContract(
  name: string,
  open: () => Promise<{ readModels: AuditReadModelUnderTest; dispose(): Promise<void> }>,
): void {
  describe(`${name} audit read model contract`, () => {
    let rm: AuditReadModelUnderTest;
    let dispose: () => Promise<void>;
    let position = 1n;
    const projections = new ProjectionSet([tenantsProjection, auditProjection]);

    beforeAll(async () => {
      ({ readModels: rm, dispose } = await open());
      const checkpoint = await rm.projectionStore.checkpoint();
      position = (checkpoint?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    const revisions = new Map<string, bigint>();
    /** Appends the events to the log (in this order) and lets the projection apply them as the projector does. */
    const record = async (...events: Event[]): Promise<RecordedEvent[]> => {
      const recorded = events.map(({ streamId: stream, ...event }): RecordedEvent => {
        position += 1n;
        const streamId = stream ?? `test-${position}`;
        const revision = revisions.has(streamId) ? revisions.get(streamId)! + 1n : 0n;
        revisions.set(streamId, revision);
        return { ...event, streamId, revision, position: { commit: position, prepare: position } };
      });
      await apply(recorded);
      return recorded;
    };
    const apply = async (recorded: RecordedEvent[]) => {
      const changes = await applyBatch(recorded, projections, rm.projectionStore);
      await rm.projectionStore.commit(changes, recorded[recorded.length - 1].position);
    };
    const list = (tenant: string, query: Partial<AuditListQuery> = {}) => rm.audit.list(tenant, { page: 1, size: 100, ...query });
    const ids = async (tenant: string, query: Partial<AuditListQuery> = {}) => (await list(tenant, query)).items.map((e) => e.entity_id);

    it('answers entries as GET /logs shows them, newest first, then by log order within one instant', async () => {
      const tenant = randomUUID();
      const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const actor = randomUUID();
      await record(
        tokenWrite('TokenCreated', tenant, a, '2024-05-01T10:00:00.000Z', actor),
        tokenWrite('TokenCreated', tenant, b, '2024-05-03T10:00:00.000Z'),
        // Written earlier in the log but later in time (clocks of two API processes): time decides first.
        tokenWrite('TokenCreated', tenant, c, '2024-05-02T10:00:00.000Z'),
      );
      // Same instant as b, later in the log: comes before b.
      await record(tokenWrite('TokenDeleted', tenant, d, '2024-05-03T10:00:00.000Z'));
      const page = await list(tenant);
      expect(page.total).toBe(4);
      expect(page.items.map((e) => e.entity_id)).toEqual([d, b, c, a]);
      expect(page.items[3]).toEqual<AuditEntry>({
        tenant_id: tenant,
        actor_id: actor,
        actor_type: 'application',
        entity_type: 'token',
        entity_id: a,
        operation: 'create',
        message: 'Token created',
        created_at: '2024-05-01T10:00:00.000Z',
      });
    });

    it('orders entries of one instant by log position even where positions differ only in their last digits', async () => {
      const tenant = randomUUID();
      const at = '2024-06-01T00:00:00.000Z';
      const written = [];
      for (let i = 0; i < 12; i++) written.push(tokenWrite('TokenCreated', tenant, randomUUID(), at));
      const recorded = await record(...written);
      expect(await ids(tenant)).toEqual(recorded.map((e) => (e.data as { id: string }).id).reverse());
    });

    it('keeps each tenant to its own entries, whatever the filter', async () => {
      const [mine, theirs] = [randomUUID(), randomUUID()];
      const shared = randomUUID();
      await record(
        tokenWrite('TokenCreated', mine, shared, '2024-05-01T10:00:00.000Z'),
        tokenWrite('TokenCreated', theirs, shared, '2024-05-01T10:00:01.000Z'),
        tokenWrite('TokenCreated', theirs, randomUUID(), '2024-05-01T10:00:02.000Z'),
      );
      expect((await list(mine)).total).toBe(1);
      expect((await list(mine)).items.every((e) => e.tenant_id === mine)).toBe(true);
      expect((await list(mine, { entity_id: shared })).total).toBe(1);
      expect((await list(theirs, { entity_id: shared })).items.map((e) => e.tenant_id)).toEqual([theirs]);
      expect(await list(randomUUID())).toEqual({ total: 0, items: [] });
    });

    it('filters by entity type and by entity id', async () => {
      const tenant = randomUUID();
      const [token, app] = [randomUUID(), randomUUID()];
      await record(
        tokenWrite('TokenCreated', tenant, token, '2024-05-01T10:00:00.000Z'),
        applicationWrite(tenant, app, '2024-05-01T11:00:00.000Z'),
        accessRecord(tenant, { entity_id: token, created_at: '2024-05-01T12:00:00.000Z' }),
        accessRecord(tenant, { entity_id: null, operation: 'search', via: 'search', count: 2, created_at: '2024-05-01T13:00:00.000Z' }),
        tokenWrite('TokenDeleted', tenant, token, '2024-05-01T14:00:00.000Z'),
      );
      const byToken = await list(tenant, { entity_id: token });
      expect(byToken.items.map((e) => e.operation)).toEqual(['delete', 'reveal', 'create']);
      expect(byToken.total).toBe(3);
      const tokens = await list(tenant, { entity_type: 'token' });
      expect(tokens.items.map((e) => e.operation)).toEqual(['delete', 'search', 'reveal', 'create']);
      expect(tokens.items[1]).toMatchObject({ entity_id: null, message: 'Search returned 2 tokens in plaintext' });
      const apps = await list(tenant, { entity_type: 'application' });
      expect(apps.items).toEqual([
        expect.objectContaining({ entity_id: app, operation: 'regenerate', actor_type: 'operator', actor_id: 'cli' }),
      ]);
      expect(await list(tenant, { entity_type: 'reactor' })).toEqual({ total: 0, items: [] });
      expect(await list(tenant, { entity_type: 'application', entity_id: token })).toEqual({ total: 0, items: [] });
    });

    it('filters by time, both ends inclusive to the millisecond', async () => {
      const tenant = randomUUID();
      const times = ['2024-05-01T09:59:59.999Z', '2024-05-01T10:00:00.000Z', '2024-05-01T12:00:00.000Z', '2024-05-01T12:00:00.001Z'];
      await record(...times.map((at) => tokenWrite('TokenCreated', tenant, randomUUID(), at)));
      const createdAt = async (query: Partial<AuditListQuery>) => (await list(tenant, query)).items.map((e) => e.created_at);
      const [from, to] = [new Date('2024-05-01T10:00:00.000Z'), new Date('2024-05-01T12:00:00.000Z')];
      expect(await createdAt({ start_date: from })).toEqual([times[3], times[2], times[1]]);
      expect(await createdAt({ end_date: to })).toEqual([times[2], times[1], times[0]]);
      expect(await createdAt({ start_date: from, end_date: to })).toEqual([times[2], times[1]]);
      expect(await createdAt({ start_date: to, end_date: to })).toEqual([times[2]]);
      expect((await list(tenant, { start_date: new Date('2025-01-01T00:00:00Z') })).total).toBe(0);
    });

    it('pages with exact totals, and answers a page past the end empty with the true total', async () => {
      const tenant = randomUUID();
      const written = Array.from({ length: 7 }, (_, i) => tokenWrite('TokenCreated', tenant, randomUUID(), `2024-07-0${i + 1}T00:00:00.000Z`));
      await record(...written);
      const newestFirst = written.map((e) => (e.data as { id: string }).id).reverse();
      const page2 = await list(tenant, { page: 2, size: 3 });
      expect(page2.total).toBe(7);
      expect(page2.items.map((e) => e.entity_id)).toEqual(newestFirst.slice(3, 6));
      expect((await list(tenant, { page: 3, size: 3 })).items.map((e) => e.entity_id)).toEqual(newestFirst.slice(6));
      expect(await list(tenant, { page: 4, size: 3 })).toEqual({ total: 7, items: [] });
      const filtered = await list(tenant, { page: 2, size: 2, start_date: new Date('2024-07-03T00:00:00Z') });
      expect(filtered.total).toBe(5);
      expect(filtered.items.map((e) => e.entity_id)).toEqual(newestFirst.slice(2, 4));
    });

    it('adds one entry per event even when a batch is replayed (a crash before the checkpoint)', async () => {
      const tenant = randomUUID();
      const recorded = await record(tokenWrite('TokenCreated', tenant, randomUUID(), '2024-05-01T10:00:00.000Z'));
      await apply(recorded);
      expect((await list(tenant)).total).toBe(1);
    });

    it("leaves official formulas' events out of every log", async () => {
      const tenant = randomUUID();
      const formula = randomUUID();
      await record({
        type: 'ReactorFormulaDeleted',
        data: { id: formula, deleted_by: 'cli', deleted_at: '2024-05-01T10:00:00.000Z' },
        metadata: metadata(null, { type: 'operator', id: 'cli' }, '2024-05-01T10:00:00.000Z'),
      });
      await record(tokenWrite('TokenCreated', tenant, randomUUID(), '2024-05-01T10:00:00.000Z'));
      expect(await list(tenant, { entity_id: formula })).toEqual({ total: 0, items: [] });
    });

    it("purges a deleted tenant's entries with its other documents, and drops its writes still in flight", async () => {
      const [gone, kept] = [randomUUID(), randomUUID()];
      const at = '2024-08-01T10:00:00.000Z';
      const tenantEvent = (type: 'TenantCreated' | 'TenantDeleted', id: string): Event => ({
        type,
        data: type === 'TenantCreated' ? { id, name: 'n', created_by: 'cli', created_at: at } : { id, deleted_by: 'cli', deleted_at: at },
        metadata: metadata(id, { type: 'operator', id: 'cli' }, at),
        streamId: `tenant-${id}`,
      });
      await record(
        tenantEvent('TenantCreated', gone),
        tenantEvent('TenantCreated', kept),
        tokenWrite('TokenCreated', gone, randomUUID(), at),
        accessRecord(gone, { created_at: at }),
        tokenWrite('TokenCreated', kept, randomUUID(), at),
      );
      expect((await list(gone)).total).toBe(3);
      await record(tenantEvent('TenantDeleted', gone));
      await record(tokenWrite('TokenCreated', gone, randomUUID(), at), accessRecord(gone, { created_at: at }));
      expect(await list(gone)).toEqual({ total: 0, items: [] });
      expect((await list(kept)).items.map((e) => e.operation)).toEqual(['create', 'create']);
    });

    it('drops access records created before the cutoff, in every tenant, and keeps every write', async () => {
      const [t1, t2] = [randomUUID(), randomUUID()];
      const token = randomUUID();
      const old = '2001-03-01T00:00:00.000Z';
      const cutoff = new Date('2001-03-02T00:00:00.000Z');
      await record(
        tokenWrite('TokenCreated', t1, token, old),
        accessRecord(t1, { entity_id: token, created_at: old }),
        accessRecord(t1, { entity_id: token, operation: 'use', via: 'react', created_at: old }),
        accessRecord(t1, { entity_type: 'reactor', entity_id: randomUUID(), operation: 'invoke', via: 'react', created_at: old }),
        accessRecord(t2, { entity_id: null, operation: 'search', via: 'search', count: 1, created_at: old }),
        applicationWrite(t2, randomUUID(), old),
        // At the cutoff itself: kept (only records strictly before it go).
        accessRecord(t1, { entity_id: token, created_at: cutoff.toISOString() }),
        accessRecord(t2, { entity_id: token, via: 'detokenize', created_at: '2001-03-05T00:00:00.000Z' }),
      );
      expect(await rm.audit.dropAccessRecordsBefore(cutoff)).toBe(4);
      expect((await list(t1)).items.map((e) => [e.operation, e.created_at])).toEqual([
        ['reveal', cutoff.toISOString()],
        ['create', old],
      ]);
      expect((await list(t2)).items.map((e) => e.operation)).toEqual(['reveal', 'regenerate']);
      expect(await rm.audit.dropAccessRecordsBefore(cutoff)).toBe(0);
    });
  });
}
