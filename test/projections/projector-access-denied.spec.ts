// A projector whose event store refuses its credentials stops for good with one clear log line instead of retrying
// every second. The refusal comes from a wrapper around the real embedded store, the way EventStoreDB's adapter
// reports a user without read access to $all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationsTable, SqliteEventStore, SqliteReadModel, tenantsTable } from '@vault/adapters';
import {
  applicationsProjection,
  EventStore,
  EventStoreAccessDeniedError,
  ProjectionSet,
  Projector,
  SubscribeOptions,
  tenantsProjection,
} from '@vault/application';

class DeniedEventStore implements EventStore {
  subscribeCalls = 0;
  /** Whether reads of the whole log are refused too (access revoked while running), not only the subscription. */
  deniesReads = false;
  constructor(private readonly inner: EventStore) {}

  private guard<T>(read: () => Promise<T>): Promise<T> {
    return this.deniesReads ? Promise.reject(new EventStoreAccessDeniedError('read $all')) : read();
  }

  append: EventStore['append'] = (streamId, events, expected) => this.inner.append(streamId, events, expected);
  appendMany: EventStore['appendMany'] = (batch) => this.inner.appendMany(batch);
  readStream: EventStore['readStream'] = (streamId) => this.inner.readStream(streamId);
  readAll: EventStore['readAll'] = (after, limit) => this.guard(() => this.inner.readAll(after, limit));
  headPosition: EventStore['headPosition'] = () => this.guard(() => this.inner.headPosition());
  backlog: EventStore['backlog'] = (after, cap) => this.guard(() => this.inner.backlog(after, cap));
  close = async () => undefined;

  subscribe(options: SubscribeOptions) {
    this.subscribeCalls += 1;
    setImmediate(() => options.onError?.(new EventStoreAccessDeniedError('read $all')));
    return { close: async () => undefined };
  }
}

describe('projector on an event store that denies access', () => {
  let dir: string;
  let store: SqliteEventStore;
  let model: SqliteReadModel;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-denied-'));
    store = SqliteEventStore.open(dir);
    model = SqliteReadModel.open(dir, [tenantsTable, applicationsTable]);
  });
  afterEach(async () => {
    await model.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails its start, logs one fatal line naming the fix, and never retries', async () => {
    const events = new DeniedEventStore(store);
    const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
    const projector = new Projector(events, model, new ProjectionSet([tenantsProjection, applicationsProjection]), {
      info: (message, fields) => lines.push({ level: 'info', message, fields }),
      error: (message, fields) => lines.push({ level: 'error', message, fields }),
    });
    const started = projector.start().then(
      () => 'caught up',
      (error: unknown) => error,
    );
    const outcome = await Promise.race([started, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 2500))]);
    expect(outcome).toBeInstanceOf(EventStoreAccessDeniedError);
    expect(await projector.status()).toMatchObject({ running: false, failure: 'The event store denied access: read $all' });
    // Past the one-second retry delay, before anything is stopped: a retrying projector would have subscribed again.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(events.subscribeCalls).toBe(1);
    await projector.stop();
    expect(lines).toEqual([
      {
        level: 'error',
        message: expect.stringMatching(/^projector stopped for good: .*\$ops or \$admins/),
        fields: { error: 'The event store denied access: read $all', fatal: true },
      },
    ]);
  });

  it('reports a refusal of its status reads as the failure, rather than rejecting', async () => {
    const events = new DeniedEventStore(store);
    const projector = new Projector(events, model, new ProjectionSet([tenantsProjection]), { info: () => undefined, error: () => undefined });
    events.deniesReads = true;
    expect(await projector.status()).toMatchObject({ running: false, failure: 'The event store denied access: read $all' });
  });
});
