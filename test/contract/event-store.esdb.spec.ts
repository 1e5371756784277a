import { EsdbEventStore } from '@vault/adapters';
import { describeEventStoreContract } from './event-store.contract';

// A live server keeps its streams between runs; the contract suite uses fresh random stream ids in every test.
const url = process.env.ESDB_URL;

if (url) {
  describeEventStoreContract('EventStoreDB', async () => {
    const store = EsdbEventStore.fromConnectionString(url);
    return { store, dispose: () => store.close() };
  });
} else {
  describe.skip('EventStoreDB event store contract (skipped: set ESDB_URL, e.g. esdb://localhost:2113?tls=false, to run it against a live server)', () => {
    it('needs ESDB_URL', () => undefined);
  });
}
