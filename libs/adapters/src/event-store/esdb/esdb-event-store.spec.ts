// The store's bookkeeping of subscriptions, with the real client against a port where no server listens: the state
// of every subscription while EventStoreDB restarts; and appendMany's order, with the stream appends recorded.
import { createServer } from 'node:net';
import { WrongExpectedRevisionError, type EventToAppend, type ExpectedRevision } from '@vault/application';
import { EsdbEventStore } from './esdb-event-store';

/** A local port that was free a moment ago: connecting to it is refused, as while a server restarts. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

describe('EventStoreDB subscriptions while the server is down', () => {
  let store: EsdbEventStore;
  beforeEach(async () => {
    store = EsdbEventStore.fromConnectionString(`esdb://127.0.0.1:${await closedPort()}?tls=false`);
  });
  afterEach(() => store.close());

  const failedSubscription = () =>
    new Promise<unknown>((resolve) => {
      store.subscribe({ after: null, onEvents: async () => undefined, onError: resolve });
    });

  it('reports the failure and releases the subscription, so retries do not pile up', async () => {
    for (let retry = 0; retry < 3; retry++) {
      const error = await failedSubscription();
      expect(error).toMatchObject({ type: 'unavailable' });
      expect(store.openSubscriptions).toBe(0);
    }
  });

  it('counts a subscription until it is closed', async () => {
    const subscription = store.subscribe({ after: null, onEvents: async () => undefined, onError: () => undefined });
    expect(store.openSubscriptions).toBe(1);
    await subscription.close();
    expect(store.openSubscriptions).toBe(0);
  });
});

describe('EventStoreDB appendMany without a server', () => {
  /** The store with each stream append recorded instead of sent; `refuse` names a stream the server would refuse. */
  class RecordingStore extends EsdbEventStore {
    readonly appended: string[] = [];
    refuse: string | null = null;
    override async append(streamId: string, _events: EventToAppend[], expected: ExpectedRevision) {
      if (streamId === this.refuse) throw new WrongExpectedRevisionError(streamId, expected, 0n);
      this.appended.push(streamId);
      return { nextExpectedRevision: 0n, position: { commit: BigInt(this.appended.length), prepare: BigInt(this.appended.length) } };
    }
  }
  const metadata = { tenant_id: null, actor: { type: 'operator' as const, id: 'cli' }, timestamp: '2024-05-01T00:00:00.000Z', correlation_id: 'c' };
  const part = (streamId: string) => ({ streamId, events: [{ type: 'TokenCreated', data: {}, metadata }], expected: 'no_stream' as const });
  let store: RecordingStore;
  beforeEach(async () => {
    store = new RecordingStore(`esdb://127.0.0.1:${await closedPort()}?tls=false`);
  });
  afterEach(() => store.close());

  it('appends stream after stream in batch order and answers each result in that order', async () => {
    const results = await store.appendMany([part('token-a'), part('token-b'), part('token-c')]);
    expect(store.appended).toEqual(['token-a', 'token-b', 'token-c']);
    expect(results.map((r) => r.position.commit)).toEqual([1n, 2n, 3n]);
  });

  it('stops at the first refusal, the streams before it staying written and none after it attempted', async () => {
    store.refuse = 'token-b';
    await expect(store.appendMany([part('token-a'), part('token-b'), part('token-c')])).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(store.appended).toEqual(['token-a']);
  });

  it('takes each stream at most once, before appending any', async () => {
    await expect(store.appendMany([part('token-a'), part('token-a')])).rejects.toThrow(/at most once/);
    expect(store.appended).toEqual([]);
  });
});
