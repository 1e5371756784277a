// What every EventStore adapter's subscriptions must show: where they start, what they deliver and in what order,
// when they report being caught up, and how they end. Part of the event store contract.
import { comparePositions, type EventStore, type EventToAppend, type LogPosition, type RecordedEvent } from '@vault/application';

export interface SubscriptionContractContext {
  /** The store under test (connected in the contract's beforeAll). */
  store(): EventStore;
  /** Another client on the same backing store, like a second process. */
  second(): Promise<EventStore>;
  /** A fresh stream id, unique to the call: as a prefix, it matches only the streams a test names after it. */
  stream(): string;
  event(type: string, n?: number): EventToAppend;
}

/** A subscription that records what it handled, every onCaughtUp and onError, and whether two handler calls overlapped. */
interface Follower {
  /** The events of every batch whose handler call succeeded, in the order handled. */
  handled: RecordedEvent[];
  /** How many events had been handled at each onCaughtUp. */
  caughtUp: number[];
  errors: unknown[];
  handlerCalls: number;
  overlapped: boolean;
  close(): Promise<void>;
}

const follow = (
  store: EventStore,
  after: LogPosition | null,
  prefix: string,
  handle: (events: RecordedEvent[]) => Promise<void> = async () => undefined,
): Follower => {
  let running = 0;
  const follower: Follower = { handled: [], caughtUp: [], errors: [], handlerCalls: 0, overlapped: false, close: async () => undefined };
  const subscription = store.subscribe({
    after,
    streamPrefixes: [prefix],
    onEvents: async (events) => {
      follower.handlerCalls += 1;
      running += 1;
      if (running > 1) follower.overlapped = true;
      try {
        await handle(events);
        follower.handled.push(...events);
      } finally {
        running -= 1;
      }
    },
    onCaughtUp: () => void follower.caughtUp.push(follower.handled.length),
    onError: (error) => void follower.errors.push(error),
  });
  follower.close = () => subscription.close();
  return follower;
};

const types = (events: RecordedEvent[]) => events.map((e) => e.type);
const numbered = (label: string, count: number) => Array.from({ length: count }, (_, n) => `${label}${n}`);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const expectInLogOrder = (events: RecordedEvent[]) => {
  for (let i = 1; i < events.length; i++) expect(comparePositions(events[i - 1].position, events[i].position)).toBeLessThan(0);
};

export function describeSubscriptionContract(context: SubscriptionContractContext): void {
  describe('subscriptions', () => {
    const { second, stream, event } = context;
    const appendTypes = (store: EventStore, streamId: string, labels: string[], expected: bigint | 'no_stream') =>
      store.append(streamId, labels.map((label) => event(label)), expected);

    it('catches up, then delivers events appended later by another client, one batch at a time', async () => {
      const store = context.store();
      const start = await store.headPosition();
      const id = stream();
      await store.append(id, [event('Old', 1)], 'no_stream');
      const follower = follow(store, start, id, () => sleep(5));
      try {
        await waitFor(() => follower.handled.length === 1 && follower.caughtUp.length > 0);
        const other = await second();
        let revision = 0n;
        for (let n = 2; n <= 6; n++) revision = (await other.append(id, [event(`New${n}`, n)], revision)).nextExpectedRevision;
        await waitFor(() => follower.handled.length === 6, 5000);
        expect(types(follower.handled)).toEqual(['Old', 'New2', 'New3', 'New4', 'New5', 'New6']);
        expect(follower.overlapped).toBe(false);
      } finally {
        await follower.close();
      }
    });

    it('resumes from a checkpoint: every later event of its streams exactly once, in log order, then the live ones', async () => {
      const store = context.store();
      const prefix = stream();
      const [a, b] = [`${prefix}-a`, `${prefix}-b`];
      const start = await store.headPosition();
      await appendTypes(store, a, ['A0'], 'no_stream');
      await appendTypes(store, b, ['B0'], 'no_stream');
      await appendTypes(store, stream(), ['Elsewhere'], 'no_stream');
      await appendTypes(store, a, ['A1'], 0n);
      const first = follow(store, start, prefix);
      await waitFor(() => first.handled.length >= 3);
      await first.close();
      expect(types(first.handled)).toEqual(['A0', 'B0', 'A1']);

      // As if the follower had stored B0's position and stopped before it could store A1's.
      const checkpoint = first.handled[1].position;
      await appendTypes(store, b, ['B1'], 0n);
      const resumed = follow(store, checkpoint, prefix);
      try {
        await waitFor(() => resumed.handled.length >= 2);
        const other = await second();
        await appendTypes(other, a, ['A2'], 1n);
        await appendTypes(other, b, ['Last'], 1n);
        await waitFor(() => types(resumed.handled).includes('Last'));
        expect(types(resumed.handled)).toEqual(['A1', 'B1', 'A2', 'Last']);
        expectInLogOrder(resumed.handled);
        expect(resumed.errors).toEqual([]);
      } finally {
        await resumed.close();
      }
    });

    it('reports being caught up once, after handling every event the log held when it started, however slow its handler', async () => {
      const store = context.store();
      const prefix = stream();
      const start = await store.headPosition();
      for (const part of ['a', 'b', 'c']) await appendTypes(store, `${prefix}-${part}`, numbered(part, 100), 'no_stream');
      const follower = follow(store, start, prefix, () => sleep(20));
      try {
        await waitFor(() => follower.caughtUp.length > 0, 20_000);
        expect(follower.caughtUp).toEqual([300]);
        await appendTypes(await second(), `${prefix}-a`, ['Live'], 99n);
        await waitFor(() => types(follower.handled).includes('Live'));
        expect(types(follower.handled)).toEqual([...numbered('a', 100), ...numbered('b', 100), ...numbered('c', 100), 'Live']);
        expect(follower.caughtUp).toEqual([300]);
        expect(follower.overlapped).toBe(false);
      } finally {
        await follower.close();
      }
    });

    it('delivers the events appended while it catches up after those before them, each once', async () => {
      const store = context.store();
      const prefix = stream();
      const [a, b] = [`${prefix}-a`, `${prefix}-b`];
      const start = await store.headPosition();
      await appendTypes(store, a, numbered('Before', 50), 'no_stream');
      const other = await second();
      let appended = false;
      const follower = follow(store, start, prefix, async () => {
        if (appended) return;
        appended = true;
        // Written while the first batch is being handled, one append each: the subscription is still catching up.
        let revision: bigint | 'no_stream' = 'no_stream';
        for (const label of numbered('During', 20)) revision = (await appendTypes(other, b, [label], revision)).nextExpectedRevision;
      });
      try {
        await waitFor(() => follower.handled.length >= 70 && follower.caughtUp.length > 0, 10_000);
        await appendTypes(other, a, ['After'], 49n);
        await waitFor(() => types(follower.handled).includes('After'));
        expect(types(follower.handled)).toEqual([...numbered('Before', 50), ...numbered('During', 20), 'After']);
        expectInLogOrder(follower.handled);
      } finally {
        await follower.close();
      }
    });

    it("ends at its handler's failure, reporting that error, and a new one from the same position delivers the rest", async () => {
      const store = context.store();
      const prefix = stream();
      const start = await store.headPosition();
      await appendTypes(store, `${prefix}-a`, ['First'], 'no_stream');
      const failure = new Error('the read model refused the batch');
      const failing = follow(store, start, prefix, async () => {
        throw failure;
      });
      try {
        await waitFor(() => failing.errors.length > 0);
        await appendTypes(store, `${prefix}-a`, ['Second'], 0n);
        await sleep(400);
        expect(failing.errors).toHaveLength(1);
        expect(failing.errors[0]).toBe(failure);
        expect(failing.handlerCalls).toBe(1);
      } finally {
        await failing.close();
      }
      const retry = follow(store, start, prefix);
      try {
        await waitFor(() => retry.handled.length >= 2);
        expect(types(retry.handled)).toEqual(['First', 'Second']);
      } finally {
        await retry.close();
      }
    });

    it('delivers nothing after close', async () => {
      const store = context.store();
      const start = await store.headPosition();
      const id = stream();
      const follower = follow(store, start, id);
      await follower.close();
      await store.append(id, [event('Late')], 'no_stream');
      await sleep(400);
      expect(follower.handlerCalls).toBe(0);
    });
  });
}

async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
