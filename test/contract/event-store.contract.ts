// The behaviour every EventStore adapter must show; run by one spec per adapter.
import { randomUUID } from 'node:crypto';
import { largestAppend } from './event-store.largest-append';
import { describeSubscriptionContract } from './event-store.subscription.contract';
import {
  comparePositions,
  EventStore,
  EventToAppend,
  RecordedEvent,
  WrongExpectedRevisionError,
} from '@vault/application';

export interface EventStoreConnection {
  store: EventStore;
  dispose(): Promise<void>;
}

export interface EventStoreTraits {
  /**
   * appendMany writes all of a batch or nothing (embedded: one transaction). Without it (EventStoreDB) streams are
   * appended in batch order and a refusal leaves the streams before it written.
   */
  atomicBatches: boolean;
}

/** `connect` must return a new client on the same backing store each time it is called (like a second process). */
export function describeEventStoreContract(name: string, connect: () => Promise<EventStoreConnection>, traits: EventStoreTraits): void {
  describe(`${name} event store contract`, () => {
    let connection: EventStoreConnection;
    let store: EventStore;
    const others: EventStoreConnection[] = [];

    beforeAll(async () => {
      connection = await connect();
      store = connection.store;
    });
    afterAll(async () => {
      for (const other of others) await other.dispose();
      await connection.dispose();
    });

    const second = async () => {
      const other = await connect();
      others.push(other);
      return other.store;
    };
    const stream = () => `token-${randomUUID()}`;
    const event = (type: string, n = 0): EventToAppend => ({
      type,
      data: { n },
      metadata: {
        tenant_id: 'c0ffee00-0000-4000-8000-000000000001',
        actor: { type: 'application', id: 'app-1' },
        timestamp: '2024-05-01T10:00:00.000Z',
        correlation_id: `corr-${n}`,
      },
    });

    it('creates a stream with no_stream and reads it back with data and metadata', async () => {
      const id = stream();
      const result = await store.append(id, [event('TokenCreated', 1)], 'no_stream');
      expect(result.nextExpectedRevision).toBe(0n);
      const events = await store.readStream(id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ streamId: id, revision: 0n, type: 'TokenCreated', data: { n: 1 } });
      expect(events[0].metadata).toEqual(event('x', 1).metadata);
      expect(comparePositions(events[0].position, result.position)).toBe(0);
    });

    it('takes the largest append the vault makes (a formula at every limit) and reads it back unchanged', async () => {
      const { streamId, events } = largestAppend();
      await store.append(streamId, events, 'no_stream');
      const read = await store.readStream(streamId);
      expect(read.map((e) => e.type)).toEqual(events.map((e) => e.type));
      expect(read.map((e) => e.data)).toEqual(events.map((e) => e.data));
    });

    it('returns [] for a stream that does not exist', async () => {
      expect(await store.readStream(stream())).toEqual([]);
    });

    it('appends several events atomically with consecutive revisions', async () => {
      const id = stream();
      const result = await store.append(id, [event('A', 1), event('B', 2), event('C', 3)], 'no_stream');
      expect(result.nextExpectedRevision).toBe(2n);
      const events = await store.readStream(id);
      expect(events.map((e) => [e.type, e.revision])).toEqual([
        ['A', 0n],
        ['B', 1n],
        ['C', 2n],
      ]);
      expect(comparePositions(events[0].position, events[1].position)).toBeLessThan(0);
      expect(comparePositions(events[1].position, events[2].position)).toBeLessThan(0);
    });

    it('rejects no_stream on an existing stream, reporting the actual revision', async () => {
      const id = stream();
      await store.append(id, [event('A')], 'no_stream');
      const failure = await store.append(id, [event('B')], 'no_stream').catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
      expect((failure as WrongExpectedRevisionError).actual).toBe(0n);
      expect(await store.readStream(id)).toHaveLength(1);
    });

    it('appends at the exact revision and rejects a stale one without writing anything', async () => {
      const id = stream();
      await store.append(id, [event('A')], 'no_stream');
      await store.append(id, [event('B')], 0n);
      const failure = await store.append(id, [event('C'), event('D')], 0n).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
      expect((failure as WrongExpectedRevisionError).actual).toBe(1n);
      expect((await store.readStream(id)).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('rejects an exact revision on a stream that does not exist', async () => {
      const failure = await store.append(stream(), [event('A')], 0n).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
      expect((failure as WrongExpectedRevisionError).actual).toBe('no_stream');
    });

    it('lets exactly one of two clients win a race on the same revision', async () => {
      const id = stream();
      await store.append(id, [event('A')], 'no_stream');
      const other = await second();
      const results = await Promise.allSettled([
        store.append(id, [event('B', 1)], 0n),
        other.append(id, [event('B', 2)], 0n),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(id)).toHaveLength(2);
    });

    describe('appendMany', () => {
      it('appends to several streams, answering each one\'s revision and position in batch order', async () => {
        const [a, b, c] = [stream(), stream(), stream()];
        await store.append(b, [event('B0')], 'no_stream');
        const results = await store.appendMany([
          { streamId: a, events: [event('A0', 1), event('A1', 2)], expected: 'no_stream' },
          { streamId: b, events: [event('B1', 3)], expected: 0n },
          { streamId: c, events: [event('C0', 4)], expected: 'any' },
        ]);
        expect(results.map((r) => r.nextExpectedRevision)).toEqual([1n, 1n, 0n]);
        const [readA, readB, readC] = await Promise.all([a, b, c].map((id) => store.readStream(id)));
        expect(readA.map((e) => [e.type, e.revision, e.data])).toEqual([['A0', 0n, { n: 1 }], ['A1', 1n, { n: 2 }]]);
        expect(readB.map((e) => e.type)).toEqual(['B0', 'B1']);
        expect(readC.map((e) => e.type)).toEqual(['C0']);
        expect(comparePositions(results[0].position, readA[1].position)).toBe(0);
        expect(comparePositions(results[1].position, readB[1].position)).toBe(0);
        expect(comparePositions(results[2].position, readC[0].position)).toBe(0);
        // In the log in batch order, the last result being the batch's last event.
        expect(comparePositions(results[0].position, results[1].position)).toBeLessThan(0);
        expect(comparePositions(results[1].position, results[2].position)).toBeLessThan(0);
      });

      it('is read back from the whole log like separate appends, after the position before it', async () => {
        const before = await store.headPosition();
        const [a, b] = [stream(), stream()];
        await store.appendMany([
          { streamId: a, events: [event('A0')], expected: 'no_stream' },
          { streamId: b, events: [event('B0')], expected: 'no_stream' },
        ]);
        const after = (await store.readAll(before, 10_000)).filter((e) => e.streamId === a || e.streamId === b);
        expect(after.map((e) => e.type)).toEqual(['A0', 'B0']);
      });

      it(`refuses a stream not at its expected revision${traits.atomicBatches ? ', writing nothing of the batch' : ', the streams before it staying written'}`, async () => {
        const [a, b, c] = [stream(), stream(), stream()];
        await store.append(b, [event('B0')], 'no_stream');
        const failure = await store
          .appendMany([
            { streamId: a, events: [event('A0')], expected: 'no_stream' },
            { streamId: b, events: [event('B1')], expected: 'no_stream' },
            { streamId: c, events: [event('C0')], expected: 'no_stream' },
          ])
          .catch((e: unknown) => e);
        expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
        expect(failure).toMatchObject({ streamId: b, actual: 0n });
        expect((await store.readStream(a)).map((e) => e.type)).toEqual(traits.atomicBatches ? [] : ['A0']);
        expect((await store.readStream(b)).map((e) => e.type)).toEqual(['B0']);
        expect(await store.readStream(c)).toEqual([]);
      });

      it('lets exactly one of two clients\' batches win a race on a stream they share', async () => {
        const shared = stream();
        const [mine, theirs] = [stream(), stream()];
        const other = await second();
        const results = await Promise.allSettled([
          store.appendMany([
            { streamId: mine, events: [event('Mine')], expected: 'no_stream' },
            { streamId: shared, events: [event('S', 1)], expected: 'no_stream' },
          ]),
          other.appendMany([
            { streamId: theirs, events: [event('Theirs')], expected: 'no_stream' },
            { streamId: shared, events: [event('S', 2)], expected: 'no_stream' },
          ]),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect(await store.readStream(shared)).toHaveLength(1);
        if (traits.atomicBatches) {
          const winner = results[0].status === 'fulfilled' ? mine : theirs;
          const loser = winner === mine ? theirs : mine;
          expect(await store.readStream(winner)).toHaveLength(1);
          expect(await store.readStream(loser)).toEqual([]);
        }
      });

      it('takes each stream at most once per batch', async () => {
        const id = stream();
        await expect(
          store.appendMany([
            { streamId: id, events: [event('A')], expected: 'no_stream' },
            { streamId: id, events: [event('B')], expected: 0n },
          ]),
        ).rejects.toThrow(/at most once/);
        expect(await store.readStream(id)).toEqual([]);
      });

      it('delivers a batch to a subscription like any other append', async () => {
        const [a, b] = [stream(), stream()];
        const received: string[] = [];
        let delivered: () => void = () => undefined;
        const both = new Promise<void>((resolve) => (delivered = resolve));
        const subscription = store.subscribe({
          after: await store.headPosition(),
          onEvents: async (events) => {
            received.push(...events.filter((e) => e.streamId === a || e.streamId === b).map((e) => e.type));
            if (received.length >= 2) delivered();
          },
        });
        try {
          await store.appendMany([
            { streamId: a, events: [event('A0')], expected: 'no_stream' },
            { streamId: b, events: [event('B0')], expected: 'no_stream' },
          ]);
          await both;
          expect(received).toEqual(['A0', 'B0']);
        } finally {
          await subscription.close();
        }
      });
    });

    it('reads the whole log strictly after a position, in order', async () => {
      const before = await store.headPosition();
      const a = stream();
      const b = stream();
      await store.append(a, [event('A1', 1)], 'no_stream');
      await store.append(b, [event('B1', 2)], 'no_stream');
      await store.append(a, [event('A2', 3)], 0n);
      const all = await readAllAfter(store, before, (e) => e.streamId === a || e.streamId === b);
      expect(all.map((e) => e.type)).toEqual(['A1', 'B1', 'A2']);
      const afterFirst = await readAllAfter(store, all[0].position, (e) => e.streamId === a || e.streamId === b);
      expect(afterFirst.map((e) => e.type)).toEqual(['B1', 'A2']);
      expect(comparePositions((await store.headPosition())!, all[2].position)).toBeGreaterThanOrEqual(0);
    });

    it('honours the readAll limit', async () => {
      const before = await store.headPosition();
      await store.append(stream(), [event('A'), event('B'), event('C')], 'no_stream');
      expect(await store.readAll(before, 2)).toHaveLength(2);
    });

    it('counts the events after a position, in events whatever its positions measure, up to a cap', async () => {
      const before = await store.headPosition();
      const a = stream();
      const b = stream();
      const first = await store.append(a, [event('A1', 1), event('A2', 2)], 'no_stream');
      await store.append(b, [event('B1', 3)], 'no_stream');
      const oldest = event('x', 1).metadata.timestamp;
      expect(await store.backlog(before, 10)).toEqual({ events: 3, capped: false, oldestTimestamp: oldest });
      expect(await store.backlog(before, 3)).toEqual({ events: 3, capped: false, oldestTimestamp: oldest });
      expect(await store.backlog(before, 2)).toEqual({ events: 2, capped: true, oldestTimestamp: oldest });
      expect(await store.backlog(first.position, 10)).toMatchObject({ events: 1, capped: false });
      expect(await store.backlog(await store.headPosition(), 10)).toEqual({ events: 0, capped: false, oldestTimestamp: null });
    });

    describeSubscriptionContract({ store: () => store, second, stream, event });
  });
}

async function readAllAfter(
  store: EventStore,
  after: Parameters<EventStore['readAll']>[0],
  keep: (e: RecordedEvent) => boolean,
): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll(cursor, 500);
    if (page.length === 0) return out;
    out.push(...page.filter(keep));
    cursor = page[page.length - 1].position;
  }
}
