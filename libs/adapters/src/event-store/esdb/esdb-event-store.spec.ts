// The store's bookkeeping of subscriptions, with the real client against a port where no server listens: the state
// of every subscription while EventStoreDB restarts.
import { createServer } from 'node:net';
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
