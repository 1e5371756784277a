// GroupCommitAccessLog on the embedded SQLite event log: concurrent records share appends, a record() resolves only once
// its records can be read back from the file by another connection, and a failed append fails every caller it held.
import { randomUUID } from 'node:crypto';
import { asyncLocalRequestContext, SqliteEventStore } from '@vault/adapters';
import { auditStream, DomainError, type AccessRecordedData, type Actor } from '@vault/domain';
import { runWithRequestContext, useRequestContextStore } from '../ports/request-context';
import { tempDataDir } from '@vault/test-support/embedded-stores';
import { failAuditAppends, interceptAppends, type InterceptedStore } from '@vault/test-support/intercepted-event-store';
import { AccessNotRecordedError, DEFAULT_GROUP_COMMIT, GroupCommitAccessLog } from './group-commit-access-log';

// As the wiring does at start-up: the request id travels with each request's calls.
useRequestContextStore(asyncLocalRequestContext);

const APP: Actor = { type: 'application', id: 'app-1' };

const aReveal = (overrides: Partial<AccessRecordedData> = {}): AccessRecordedData => ({
  tenant_id: 'tenant-a',
  entity_type: 'token',
  entity_id: randomUUID(),
  operation: 'reveal',
  via: 'get',
  created_at: '2026-11-22T10:00:00.000Z',
  ...overrides,
});

const recordsIn = (batch: { events: unknown[] }[]) => batch.reduce((n, part) => n + part.events.length, 0);

describe('GroupCommitAccessLog', () => {
  let data: ReturnType<typeof tempDataDir>;
  let sqlite: SqliteEventStore;
  let store: InterceptedStore;

  beforeEach(() => {
    data = tempDataDir('access-log');
    sqlite = SqliteEventStore.open(data.dir);
    store = interceptAppends(sqlite);
  });
  afterEach(async () => {
    await sqlite.close();
    data.remove();
  });

  /** The audit stream as a second connection to the file reads it: what is durable, not what one handle caches. */
  const durable = async (tenantId: string) => {
    const other = SqliteEventStore.open(data.dir);
    try {
      return await other.readStream(auditStream(tenantId));
    } finally {
      await other.close();
    }
  };

  it('writes 100 concurrent calls of two tenants in one append, one StreamAppend per audit stream, expected any', async () => {
    const log = new GroupCommitAccessLog(store);
    const records = Array.from({ length: 100 }, (_, i) => aReveal({ tenant_id: i % 2 ? 'tenant-a' : 'tenant-b' }));
    await Promise.all(records.map((record) => log.record([record], APP)));
    expect(store.batches).toHaveLength(1);
    expect(store.batches[0].map(({ streamId, expected }) => [streamId, expected])).toEqual([
      ['audit-tenant-b', 'any'],
      ['audit-tenant-a', 'any'],
    ]);
    expect((await durable('tenant-a')).map((e) => e.data)).toEqual(records.filter((_, i) => i % 2));
    expect((await durable('tenant-b')).map((e) => e.data)).toEqual(records.filter((_, i) => i % 2 === 0));
  });

  it('gathers the calls made while an append is in flight into the next one', async () => {
    const log = new GroupCommitAccessLog(store);
    let release!: () => void;
    store.hold = new Promise((resolve) => (release = resolve));
    const first = log.record([aReveal()], APP);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const later = Array.from({ length: 30 }, () => log.record([aReveal()], APP));
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    store.hold = null;
    await Promise.all([first, ...later]);
    expect(store.batches.map(recordsIn)).toEqual([1, 30]);
    expect(await durable('tenant-a')).toHaveLength(31);
  });

  it('starts a batch once flushAt records wait, not only at the end of the turn, so the first callers need not wait for the last', async () => {
    const log = new GroupCommitAccessLog(store, { maxBatch: 500, flushAt: 8 });
    const calls: Promise<void>[] = [];
    // One call per microtask checkpoint, as requests handled one after another in a turn make them.
    for (let i = 0; i < 20; i++) {
      calls.push(log.record([aReveal()], APP));
      await Promise.resolve();
    }
    await Promise.all(calls);
    // Each append starts a microtask or two after its eighth record, so a record or two more may join it.
    const sizes = store.batches.map(recordsIn);
    expect(sizes.length).toBeGreaterThanOrEqual(2);
    expect(sizes.slice(0, -1).every((n) => n >= 8 && n <= 10)).toBe(true);
    expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(20);
    expect(await durable('tenant-a')).toHaveLength(20);
  });

  it('resolves only once the records are in the file: not while the append is held', async () => {
    const log = new GroupCommitAccessLog(store);
    let release!: () => void;
    store.hold = new Promise((resolve) => (release = resolve));
    let resolved = false;
    const recorded = log.record([aReveal(), aReveal()], APP).then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect([resolved, await durable('tenant-a')]).toEqual([false, []]);
    release();
    await recorded;
    expect(await durable('tenant-a')).toHaveLength(2);
  });

  it('bounds a batch: 35 records at most 10 an append, and a call of 25 resolves when all its appends have', async () => {
    const log = new GroupCommitAccessLog(store, { maxBatch: 10, flushAt: 500 });
    await Promise.all([
      log.record(Array.from({ length: 25 }, () => aReveal()), APP),
      ...Array.from({ length: 10 }, () => log.record([aReveal()], APP)),
    ]);
    expect(store.batches.map(recordsIn)).toEqual([10, 10, 10, 5]);
    expect(await durable('tenant-a')).toHaveLength(35);
  });

  it('rejects every caller of a failed append with a 503, and writes the next batch once the store is back', async () => {
    const failures: number[] = [];
    const log = new GroupCommitAccessLog(store, { ...DEFAULT_GROUP_COMMIT, onAppendFailed: (_error, records) => failures.push(records) });
    store.failWith = failAuditAppends;
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => log.record([aReveal()], APP)));
    expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill('rejected'));
    const reason = (outcomes[0] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(AccessNotRecordedError);
    expect([(reason as DomainError).kind, (reason as DomainError).retryAfterSeconds]).toEqual(['unavailable', 1]);
    expect(failures).toEqual([5]);
    expect(await durable('tenant-a')).toEqual([]);

    store.failWith = null;
    await log.record([aReveal()], APP);
    expect(await durable('tenant-a')).toHaveLength(1);
  });

  it('stamps each event with its tenant, actor, time and the correlation id of the request that recorded it', async () => {
    const log = new GroupCommitAccessLog(store);
    const other: Actor = { type: 'application', id: 'app-2' };
    await Promise.all([
      runWithRequestContext({ requestId: 'req-1', projectionPending: false }, () => log.record([aReveal()], APP)),
      runWithRequestContext({ requestId: 'req-2', projectionPending: false }, () =>
        log.record([aReveal({ created_at: '2026-11-22T10:00:01.000Z' })], other),
      ),
    ]);
    expect(store.batches).toHaveLength(1);
    expect((await durable('tenant-a')).map((e) => [e.type, e.metadata])).toEqual([
      ['AccessRecorded', { tenant_id: 'tenant-a', actor: APP, timestamp: '2026-11-22T10:00:00.000Z', correlation_id: 'req-1' }],
      ['AccessRecorded', { tenant_id: 'tenant-a', actor: other, timestamp: '2026-11-22T10:00:01.000Z', correlation_id: 'req-2' }],
    ]);
  });

  it('flush waits for the records queued so far', async () => {
    const log = new GroupCommitAccessLog(store);
    const recorded = log.record([aReveal()], APP);
    await log.flush();
    expect(await durable('tenant-a')).toHaveLength(1);
    await recorded;
  });
});
