// The usage report's read model every adapter must provide, fed through the real usage projections as the projector
// feeds them: live tokens by type with the newest creation time, distinct tokens active in a month (created, updated,
// or named by an access record), counts only, tenant isolation, a deleted tenant's counts gone with it, and the
// counts equal to a naive recount of any sequence of events, after the projector and after a rebuild alike.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  applyBatch,
  ProjectionSet,
  tenantsProjection,
  usageActiveProjection,
  usageMonthOf,
  usageTokensProjection,
  type ProjectionStore,
  type RebuildableReadModel,
  type RecordedEvent,
  type UsageCounts,
  type UsageReportReadModel,
} from '@vault/application';
import { auditStream, tenantStream, tokenStream, type AccessRecordedData, type TOKEN_TYPES } from '@vault/domain';

/** The store holds the `tenants` collection too: a deleted tenant's purge goes by its tombstone there. */
export interface UsageReportReadModelUnderTest {
  projectionStore: ProjectionStore;
  rebuildable: RebuildableReadModel;
  usage: UsageReportReadModel;
  /** After a rebuild's swap: makes `usage` read the rebuilt store (the embedded model follows its pointer). */
  followSwap(): Promise<void>;
}

type TokenType = (typeof TOKEN_TYPES)[number];
type Event = Pick<RecordedEvent, 'type' | 'data'> & { streamId: string; tenantId: string };

const MAY = '2024-05';
const at = (month: string, day = 1, hour = 10): string => `${month}-${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;

const created = (tenant: string, id: string, type: TokenType, createdAt: string): Event => ({
  type: 'TokenCreated',
  data: { id, tenant_id: tenant, type, created_by: 'app', created_at: createdAt },
  streamId: tokenStream(tenant, id),
  tenantId: tenant,
});
const updated = (tenant: string, id: string, type: TokenType, modifiedAt: string): Event => ({
  type: 'TokenUpdated',
  data: { id, tenant_id: tenant, type, modified_by: 'app', modified_at: modifiedAt },
  streamId: tokenStream(tenant, id),
  tenantId: tenant,
});
const deleted = (tenant: string, id: string, deletedAt: string): Event => ({
  type: 'TokenDeleted',
  data: { id, tenant_id: tenant, reason: 'requested', deleted_by: 'app', deleted_at: deletedAt },
  streamId: tokenStream(tenant, id),
  tenantId: tenant,
});
const accessed = (tenant: string, data: Omit<AccessRecordedData, 'tenant_id'>): Event => ({
  type: 'AccessRecorded',
  data: { tenant_id: tenant, ...data } satisfies AccessRecordedData,
  streamId: auditStream(tenant),
  tenantId: tenant,
});
const revealed = (tenant: string, id: string, createdAt: string, via: AccessRecordedData['via'] = 'get'): Event =>
  accessed(tenant, { entity_type: 'token', entity_id: id, operation: 'reveal', via, created_at: createdAt });
const used = (tenant: string, id: string, createdAt: string): Event =>
  accessed(tenant, { entity_type: 'token', entity_id: id, operation: 'use', via: 'react', reactor_id: randomUUID(), created_at: createdAt });
const tenantEvent = (type: 'TenantCreated' | 'TenantDeleted', id: string): Event => ({
  type,
  data: type === 'TenantCreated' ? { id, name: 'Tenant', created_by: 'cli', created_at: at(MAY) } : { id, deleted_by: 'cli', deleted_at: at(MAY, 2) },
  streamId: tenantStream(id),
  tenantId: id,
});

const NOTHING: UsageCounts = { metrics_by_type: {}, monthly_active_tokens: 0 };

/** What the report must say of `tenant` after `events`, recounted from the events themselves. */
function recount(events: Event[], tenant: string, month: string): UsageCounts {
  const live = new Map<string, { type: string; created_at: string }>();
  const active = new Set<string>();
  for (const event of events) {
    if (event.tenantId !== tenant) continue;
    const data = event.data as Record<string, string>;
    if (event.type === 'TokenCreated') live.set(data.id, { type: data.type, created_at: data.created_at });
    if (event.type === 'TokenUpdated' && live.has(data.id)) live.set(data.id, { ...live.get(data.id)!, type: data.type });
    if (event.type === 'TokenDeleted') live.delete(data.id);
    const activity =
      event.type === 'TokenCreated' ? data.created_at : event.type === 'TokenUpdated' ? data.modified_at : event.type === 'AccessRecorded' && data.entity_type === 'token' && data.entity_id ? data.created_at : null;
    if (activity && usageMonthOf(activity) === month) active.add(event.type === 'AccessRecorded' ? data.entity_id : data.id);
  }
  const metrics: UsageCounts['metrics_by_type'] = {};
  for (const { type, created_at } of [...live.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0))) {
    const current = metrics[type];
    metrics[type] = { count: (current?.count ?? 0) + 1, last_created_at: current && current.last_created_at > created_at ? current.last_created_at : created_at };
  }
  return { metrics_by_type: metrics, monthly_active_tokens: active.size };
}

export function describeUsageReportReadModelContract(
  name: string,
  open: () => Promise<{ readModels: UsageReportReadModelUnderTest; dispose(): Promise<void> }>,
): void {
  describe(`${name} usage report read model contract`, () => {
    let rm: UsageReportReadModelUnderTest;
    let dispose: () => Promise<void>;
    let position = 1n;
    const projections = new ProjectionSet([tenantsProjection, usageTokensProjection, usageActiveProjection]);
    /** Every event recorded, in log order: what a rebuild replays. */
    const log: RecordedEvent[] = [];

    beforeAll(async () => {
      ({ readModels: rm, dispose } = await open());
      const checkpoint = await rm.projectionStore.checkpoint();
      position = (checkpoint?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    const revisions = new Map<string, bigint>();
    /** Appends the events to the log (in this order, as one batch) and lets the projections apply them as the projector does. */
    const record = async (...events: Event[]): Promise<void> => {
      const recorded = events.map(({ streamId, tenantId, ...event }): RecordedEvent => {
        position += 1n;
        const revision = revisions.has(streamId) ? revisions.get(streamId)! + 1n : 0n;
        revisions.set(streamId, revision);
        const metadata = { tenant_id: tenantId, actor: { type: 'application' as const, id: 'app' }, timestamp: at(MAY), correlation_id: 'c' };
        return { ...event, metadata, streamId, revision, position: { commit: position, prepare: position } };
      });
      log.push(...recorded);
      const changes = await applyBatch(recorded, projections, rm.projectionStore);
      await rm.projectionStore.commit(changes, recorded[recorded.length - 1].position);
    };
    const report = (tenant: string, month = MAY) => rm.usage.usage(tenant, month);

    it('answers a tenant with nothing: no types, no active tokens', async () => {
      expect(await report(randomUUID())).toEqual(NOTHING);
    });

    it('counts live tokens by type with the newest creation time, and leaves out a type with none left', async () => {
      const tenant = randomUUID();
      const [card1, card2, card3, ssn] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await record(
        created(tenant, card1, 'card_number', at(MAY, 1)),
        created(tenant, card2, 'card_number', at(MAY, 3)),
        created(tenant, ssn, 'social_security_number', at(MAY, 2)),
      );
      await record(created(tenant, card3, 'card_number', at(MAY, 2)));
      expect((await report(tenant)).metrics_by_type).toEqual({
        card_number: { count: 3, last_created_at: at(MAY, 3) },
        social_security_number: { count: 1, last_created_at: at(MAY, 2) },
      });
      // The newest card goes: the next newest live one is the type's last creation.
      await record(deleted(tenant, card2, at(MAY, 4)), deleted(tenant, ssn, at(MAY, 4)));
      expect((await report(tenant)).metrics_by_type).toEqual({ card_number: { count: 2, last_created_at: at(MAY, 2) } });
      await record(deleted(tenant, card1, at(MAY, 5)), deleted(tenant, card3, at(MAY, 5)));
      expect((await report(tenant)).metrics_by_type).toEqual({});
    });

    it('counts each token active in the month once: created, updated, revealed, detokenized or used, deleted since or not', async () => {
      const tenant = randomUUID();
      const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      await record(created(tenant, a, 'token', at('2024-04', 30)), created(tenant, b, 'token', at('2024-04', 30)), created(tenant, c, 'token', at('2024-04', 30)));
      await record(created(tenant, d, 'token', at('2024-04', 30)));
      expect((await report(tenant, '2024-04')).monthly_active_tokens).toBe(4);
      expect((await report(tenant)).monthly_active_tokens).toBe(0);
      await record(updated(tenant, a, 'token', at(MAY, 1)), revealed(tenant, a, at(MAY, 2)), used(tenant, a, at(MAY, 3)));
      await record(revealed(tenant, b, at(MAY, 2), 'detokenize'), revealed(tenant, b, at(MAY, 3), 'detokenize'));
      await record(used(tenant, c, at(MAY, 4)), deleted(tenant, c, at(MAY, 5)));
      expect(await report(tenant)).toEqual({ metrics_by_type: { token: { count: 3, last_created_at: at('2024-04', 30) } }, monthly_active_tokens: 3 });
      // A second reveal of a token already counted moves nothing.
      await record(revealed(tenant, a, at(MAY, 20)));
      expect((await report(tenant)).monthly_active_tokens).toBe(3);
    });

    it('leaves out access records that name no token: a search (a count only), reactor and proxy invocations', async () => {
      const tenant = randomUUID();
      await record(
        accessed(tenant, { entity_type: 'token', entity_id: null, operation: 'search', via: 'search', count: 5, created_at: at(MAY, 2) }),
        accessed(tenant, { entity_type: 'reactor', entity_id: randomUUID(), operation: 'invoke', via: 'react', created_at: at(MAY, 2) }),
        accessed(tenant, { entity_type: 'proxy', entity_id: randomUUID(), operation: 'invoke', via: 'proxy', created_at: at(MAY, 2) }),
      );
      expect(await report(tenant)).toEqual(NOTHING);
    });

    it("never counts another tenant's tokens, even one with the same id", async () => {
      const [mine, theirs] = [randomUUID(), randomUUID()];
      const id = randomUUID();
      await record(created(mine, id, 'card_number', at(MAY, 1)), created(theirs, id, 'card_number', at(MAY, 9)), created(theirs, randomUUID(), 'token', at(MAY, 9)));
      await record(revealed(theirs, id, at(MAY, 10)));
      expect(await report(mine)).toEqual({ metrics_by_type: { card_number: { count: 1, last_created_at: at(MAY, 1) } }, monthly_active_tokens: 1 });
      expect(await report(theirs)).toEqual({
        metrics_by_type: { card_number: { count: 1, last_created_at: at(MAY, 9) }, token: { count: 1, last_created_at: at(MAY, 9) } },
        monthly_active_tokens: 2,
      });
      expect(await report(`${mine}" OR tenant_key EXISTS OR "x`)).toEqual(NOTHING);
      expect(await report(mine.toUpperCase())).toEqual(NOTHING);
    });

    it("drops a deleted tenant's counts, and its writes still in flight, and no other tenant's", async () => {
      const [gone, kept] = [randomUUID(), randomUUID()];
      await record(tenantEvent('TenantCreated', gone), tenantEvent('TenantCreated', kept));
      await record(created(gone, randomUUID(), 'card_number', at(MAY, 1)), created(kept, randomUUID(), 'card_number', at(MAY, 1)));
      await record(tenantEvent('TenantDeleted', gone));
      await record(created(gone, randomUUID(), 'token', at(MAY, 3)), revealed(gone, randomUUID(), at(MAY, 3)));
      expect(await report(gone)).toEqual(NOTHING);
      expect(await report(kept)).toEqual({ metrics_by_type: { card_number: { count: 1, last_created_at: at(MAY, 1) } }, monthly_active_tokens: 1 });
    });

    const TYPES: TokenType[] = ['token', 'card_number', 'social_security_number', 'employer_id_number'];
    /** A tenant's history: creates, updates, reveals, uses and deletes of a few tokens over two months, in log order. */
    const histories = fc
      .array(
        fc.record({
          kind: fc.constantFrom('create', 'create', 'update', 'reveal', 'use', 'search', 'delete'),
          token: fc.nat(5),
          type: fc.constantFrom(...TYPES),
          day: fc.integer({ min: 1, max: 28 }),
        }),
        { minLength: 1, maxLength: 25 },
      )
      .map((steps) => steps.map((step, i) => ({ ...step, month: i < steps.length / 2 ? '2024-06' : '2024-07' })));

    it('counts what a naive recount of any sequence of events counts, batch boundaries and replays aside', async () => {
      await fc.assert(
        fc.asyncProperty(histories, fc.integer({ min: 1, max: 5 }), async (steps, batchSize) => {
          const tenant = randomUUID();
          const ids = Array.from({ length: 6 }, () => randomUUID());
          const live = new Set<number>();
          const events: Event[] = [];
          for (const { kind, token, type, day, month } of steps) {
            const id = ids[token];
            const when = at(month, day);
            if (kind === 'create' && !live.has(token)) {
              live.add(token);
              events.push(created(tenant, id, type, when));
            } else if (kind === 'update' && live.has(token)) events.push(updated(tenant, id, type, when));
            else if (kind === 'delete' && live.has(token)) {
              live.delete(token);
              events.push(deleted(tenant, id, when));
            } else if (kind === 'reveal') events.push(revealed(tenant, id, when));
            else if (kind === 'use') events.push(used(tenant, id, when));
            else if (kind === 'search') events.push(accessed(tenant, { entity_type: 'token', entity_id: null, operation: 'search', via: 'search', count: 2, created_at: when }));
          }
          for (let i = 0; i < events.length; i += batchSize) await record(...events.slice(i, i + batchSize));
          // The latest month is exact (earlier months may have been pruned once a later one started).
          const month = steps[steps.length - 1].month;
          expect(await report(tenant, month)).toEqual(recount(events, tenant, month));
        }),
        { numRuns: 25 },
      );
    });

    it('answers the same after a rebuild from the log as before it', async () => {
      const tenants = [...new Set(log.map((event) => event.metadata?.tenant_id).filter((id): id is string => typeof id === 'string'))];
      const latestMonth = new Map<string, string>();
      for (const event of log) {
        const data = event.data as Record<string, string>;
        const when = data.created_at ?? data.modified_at;
        if (when && event.metadata?.tenant_id) latestMonth.set(event.metadata.tenant_id, usageMonthOf(when));
      }
      const before = await Promise.all(tenants.map((tenant) => report(tenant, latestMonth.get(tenant) ?? MAY)));
      const target = await rm.rebuildable.createRebuildTarget();
      try {
        for (let i = 0; i < log.length; i += 50) {
          const batch = log.slice(i, i + 50);
          await target.store.commit(await applyBatch(batch, projections, target.store), batch[batch.length - 1].position);
        }
        await target.swapIn();
      } catch (error) {
        await target.discard();
        throw error;
      }
      await rm.followSwap();
      const after = await Promise.all(tenants.map((tenant) => report(tenant, latestMonth.get(tenant) ?? MAY)));
      expect(after).toEqual(before);
      expect(before.some((counts) => counts.monthly_active_tokens > 0 && Object.keys(counts.metrics_by_type).length > 0)).toBe(true);
    });
  });
}
