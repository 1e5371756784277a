import { randomUUID } from 'node:crypto';
import { EsdbEventStore } from '@vault/adapters/esdb';
import { AppendTooLargeError } from '@vault/application';
import { describeEventStoreContract } from './event-store.contract';

// A live server keeps its streams between runs; the contract suite uses fresh random stream ids in every test.
const url = process.env.ESDB_URL;

if (url) {
  describeEventStoreContract('EventStoreDB', async () => {
    const store = EsdbEventStore.fromConnectionString(url);
    return { store, dispose: () => store.close() };
  }, { atomicBatches: false });

  describe('EventStoreDB append size', () => {
    const store = EsdbEventStore.fromConnectionString(url);
    afterAll(() => store.close());

    it('refuses an append larger than any MaxAppendSize a server accepts with a too_large error, writing nothing', async () => {
      // 3 × 6 MiB: past the 16 MiB ceiling of the setting, each event still within the server's gRPC message limit.
      const blob = 'x'.repeat(6 * 1024 * 1024);
      const metadata = { tenant_id: null, actor: { type: 'operator' as const, id: 'cli' }, timestamp: new Date().toISOString(), correlation_id: 'size' };
      const streamId = `formula-${randomUUID()}`;
      const events = [1, 2, 3].map((n) => ({ type: 'Oversized', data: { n, blob }, metadata }));
      const failure = await store.append(streamId, events, 'no_stream').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(AppendTooLargeError);
      expect(failure).toMatchObject({ kind: 'too_large', maxBytes: expect.any(Number) });
      expect(await store.readStream(streamId)).toEqual([]);
    });
  });
} else {
  describe.skip('EventStoreDB event store contract, its subscriptions included (skipped: set ESDB_URL, e.g. esdb://localhost:2113?tls=false, to run it against a live server)', () => {
    it('needs ESDB_URL', () => undefined);
  });
}
