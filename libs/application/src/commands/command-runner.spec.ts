// The command runner on the embedded event log: lost races are real (another request's command appended to the same
// stream between our read and our append, so the SQLite store itself refuses our revision), not a thrown fake. Only
// the size refusal, which the embedded store never makes, is thrown by the decorator as EventStoreDB's adapter would.
// runMany (one command per stream, appended in one transaction) is raced the same way on one stream of its batch.
import { randomUUID } from 'node:crypto';
import { CommandContext, Decider, DomainError, tenantDecider, tenantStream } from '@vault/domain';
import {
  AppendTooLargeError,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type LogPosition,
  type StreamAppend,
} from '../ports/event-store';
import { asyncLocalRequestContext } from '@vault/adapters';
import { runWithRequestContext, useRequestContextStore, type RequestContext } from '../ports/request-context';
import { openEmbedded, operatorContext, type Embedded } from '@vault/test-support/embedded-stores';

// As the wiring does at start-up: the request context travels with each request's calls.
useRequestContextStore(asyncLocalRequestContext);

/** A running total: each Add records the total it makes, so the stored events show which state it was decided on. */
type CounterCommand = { type: 'Add'; by: number };
type CounterEvent = { type: 'CounterAdded'; data: { by: number; total: number } };
const counter: Decider<CounterCommand, number, CounterEvent> = {
  initialState: () => 0,
  evolve: (_total, event) => event.data.total,
  decide: (command, total) => [{ type: 'CounterAdded', data: { by: command.by, total: total + command.by } }],
};

/**
 * Runs `interfere` before forwarding each append (or batch append) to the real store. To lose a race, it lets another
 * request run its whole command on one of the streams first: our append then carries a revision the real store no
 * longer has.
 */
class InterferingEventStore implements EventStore {
  private appends = 0;
  constructor(
    private readonly inner: EventStore,
    private readonly interfere: (streamIds: string[], append: number) => Promise<unknown>,
  ) {}

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    await this.interfere([streamId], ++this.appends);
    return this.inner.append(streamId, events, expected);
  }

  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    await this.interfere(batch.map(({ streamId }) => streamId), ++this.appends);
    return this.inner.appendMany(batch);
  }

  readStream: EventStore['readStream'] = (streamId) => this.inner.readStream(streamId);
  readAll: EventStore['readAll'] = (after, limit) => this.inner.readAll(after, limit);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  backlog: EventStore['backlog'] = (after, cap) => this.inner.backlog(after, cap);
  subscribe: EventStore['subscribe'] = (options) => this.inner.subscribe(options);
  close = async () => undefined;
}

// A vault stream prefix, so that every event store delivers the counter's events to followers like any other.
const counterStream = () => `tenant-counter-${randomUUID()}`;
const ctx = (): CommandContext => operatorContext(`corr-${randomUUID()}`);

describe('CommandRunner', () => {
  let vault: Embedded;
  beforeEach(async () => {
    vault = await openEmbedded({ name: 'runner', collections: [], projections: [] });
  });
  afterEach(() => vault.close());

  /** Another request adding 10 to the stream, through its own runner on the real store. */
  const addTen = (streamId: string) => vault.runner().run(counter, streamId, { type: 'Add', by: 10 }, ctx());
  /** The store, with our first `losses` appends each beaten by another request's addTen. */
  const raced = (losses: number) => new InterferingEventStore(vault.events, ([streamId], append) => (append <= losses ? addTen(streamId) : Promise.resolve()));
  const totals = async (streamId: string) => (await vault.events.readStream(streamId)).map((e) => (e.data as CounterEvent['data']).total);

  describe('a lost race', () => {
    it.each<[string, { losses: number; maxAttempts: number; seen: number[]; stored: number[] }]>([
      ['no race: decided once on the state read', { losses: 0, maxAttempts: 3, seen: [0], stored: [1] }],
      ['lost once: retried from the state the winner left', { losses: 1, maxAttempts: 3, seen: [0, 10], stored: [10, 11] }],
      ['lost on every attempt but the last', { losses: 2, maxAttempts: 3, seen: [0, 10, 20], stored: [10, 20, 21] }],
    ])('%s', async (_, { losses, maxAttempts, seen, stored }) => {
      const stream = counterStream();
      const runner = vault.runner(raced(losses), { maxAttempts });
      const states: number[] = [];
      const outcome = await runner.run(
        counter,
        stream,
        (state) => {
          states.push(state);
          return { type: 'Add', by: 1 };
        },
        ctx(),
      );
      expect(states).toEqual(seen);
      expect(await totals(stream)).toEqual(stored);
      expect(outcome.events).toEqual([{ type: 'CounterAdded', data: { by: 1, total: stored[stored.length - 1] } }]);
      expect(outcome.state).toBe(stored[stored.length - 1]);
      expect(outcome.position).toEqual(await vault.events.headPosition());
    });

    it('lost on every attempt: the caller gets a 409 conflict and nothing of ours is recorded', async () => {
      const stream = counterStream();
      const runner = vault.runner(raced(3), { maxAttempts: 3 });
      const states: number[] = [];
      const run = runner.run(counter, stream, (state) => (states.push(state), { type: 'Add', by: 1 }), ctx());
      await expect(run).rejects.toBeInstanceOf(DomainError);
      await expect(run).rejects.toMatchObject({ kind: 'conflict' });
      expect(states).toEqual([0, 10, 20]);
      expect(await totals(stream)).toEqual([10, 20, 30]);
    });

    it('a command given as a value is decided again on the fresh state', async () => {
      const stream = counterStream();
      const runner = vault.runner(raced(1));
      const outcome = await runner.run(counter, stream, { type: 'Add', by: 5 }, ctx());
      expect(await totals(stream)).toEqual([10, 15]);
      expect(outcome.state).toBe(15);
    });
  });

  const inRequest = async (run: () => Promise<unknown>): Promise<RequestContext> => {
    const context: RequestContext = { requestId: 'req-1', projectionPending: false };
    await runWithRequestContext(context, run);
    return context;
  };

  it('a decider that finds nothing to change appends nothing, answers position null and waits for nothing', async () => {
    const id = randomUUID();
    const create = { type: 'CreateTenant' as const, id, name: 'acme' };
    const first = await vault.runner().run(tenantDecider, tenantStream(id), create, ctx());
    const head = await vault.events.headPosition();
    // With nobody projecting, any wait would time out and mark the request pending.
    await vault.projector.stop();

    // The same creation again (a retried bootstrap) is done already: the tenant decider returns [].
    let again: unknown;
    const request = await inRequest(async () => {
      again = await vault.runner(vault.events, { writeWaitMs: 50 }).run(tenantDecider, tenantStream(id), create, ctx());
    });
    expect(again).toEqual({ events: [], state: first.state, position: null });
    expect(await vault.events.headPosition()).toEqual(head);
    expect(request.projectionPending).toBe(false);
  });

  describe('waiting for the read models (read-your-writes)', () => {
    it.each<[string, { projectorRuns: boolean; writeWaitMs: number; pending: boolean }]>([
      ['the projector applies the write in time: not pending', { projectorRuns: true, writeWaitMs: 5000, pending: false }],
      ['nobody applies it before the wait runs out: pending, and the write stands', { projectorRuns: false, writeWaitMs: 50, pending: true }],
    ])('%s', async (_, { projectorRuns, writeWaitMs, pending }) => {
      if (!projectorRuns) await vault.projector.stop();
      const stream = counterStream();
      const request = await inRequest(() => vault.runner(vault.events, { writeWaitMs }).run(counter, stream, { type: 'Add', by: 1 }, ctx()));
      expect(request.projectionPending).toBe(pending);
      expect(await totals(stream)).toEqual([1]);
    });

    it('outside a request (the CLI, the expiry sweep) a timed-out wait still answers', async () => {
      await vault.projector.stop();
      const stream = counterStream();
      const outcome = await vault.runner(vault.events, { writeWaitMs: 20 }).run(counter, stream, { type: 'Add', by: 2 }, ctx());
      expect(outcome.state).toBe(2);
    });
  });

  it('a store failure that is not a lost race is passed on at once, not retried', async () => {
    const stream = counterStream();
    // As EventStoreDB refuses an append over its MaxAppendSize: retrying the same events cannot help.
    const refusing = new InterferingEventStore(vault.events, async ([streamId]) => {
      throw new AppendTooLargeError(streamId, 1024);
    });
    let attempts = 0;
    const run = vault.runner(refusing).run(counter, stream, () => (attempts++, { type: 'Add', by: 1 }), ctx());
    await expect(run).rejects.toMatchObject({ kind: 'too_large' });
    expect(attempts).toBe(1);
    expect(await totals(stream)).toEqual([]);
  });

  describe('runMany: one command per stream, appended together', () => {
    /** Each stream's builder records the states it was decided on. */
    const batchOf = (streams: string[], seen: Map<string, number[]>) =>
      streams.map((streamId) => ({
        streamId,
        command: (state: number) => {
          seen.set(streamId, [...(seen.get(streamId) ?? []), state]);
          return { type: 'Add' as const, by: 1 };
        },
      }));
    /** The store, with our first `losses` batch appends each beaten by another request's addTen on the batch's stream `at`. */
    const racedOn = (at: number, losses: number) =>
      new InterferingEventStore(vault.events, (streamIds, append) => (append <= losses ? addTen(streamIds[at]) : Promise.resolve()));

    it('no race: each stream decided once, all appended in one write, outcomes in batch order', async () => {
      const streams = [counterStream(), counterStream(), counterStream()];
      const seen = new Map<string, number[]>();
      let appends = 0;
      const counting = new InterferingEventStore(vault.events, async () => void appends++);
      const outcomes = await vault.runner(counting).runMany(counter, batchOf(streams, seen), ctx());
      expect(appends).toBe(1);
      expect(streams.map((s) => seen.get(s))).toEqual([[0], [0], [0]]);
      for (const stream of streams) expect(await totals(stream)).toEqual([1]);
      expect(outcomes.map((o) => o.state)).toEqual([1, 1, 1]);
      // Consecutive positions, the batch's last being the head of the log.
      const positions = outcomes.map((o) => o.position!.commit);
      expect(positions).toEqual([positions[0], positions[0] + 1n, positions[0] + 2n]);
      expect(outcomes[2].position).toEqual(await vault.events.headPosition());
    });

    it('a race lost on one stream retries the whole batch from fresh state; the lost attempt wrote nothing anywhere', async () => {
      const streams = [counterStream(), counterStream(), counterStream()];
      const seen = new Map<string, number[]>();
      const outcomes = await vault.runner(racedOn(1, 1), { maxAttempts: 3 }).runMany(counter, batchOf(streams, seen), ctx());
      expect(streams.map((s) => seen.get(s))).toEqual([[0, 0], [0, 10], [0, 0]]);
      expect(await totals(streams[0])).toEqual([1]);
      expect(await totals(streams[1])).toEqual([10, 11]);
      expect(await totals(streams[2])).toEqual([1]);
      expect(outcomes.map((o) => o.state)).toEqual([1, 11, 1]);
    });

    it('lost on every attempt: a 409, and nothing of the batch is recorded on any stream', async () => {
      const streams = [counterStream(), counterStream()];
      const run = vault.runner(racedOn(0, 3), { maxAttempts: 3 }).runMany(counter, batchOf(streams, new Map()), ctx());
      await expect(run).rejects.toMatchObject({ kind: 'conflict' });
      expect(await totals(streams[0])).toEqual([10, 20, 30]);
      expect(await totals(streams[1])).toEqual([]);
    });

    it('a stream whose command decides nothing is left out of the append and answers position null', async () => {
      const id = randomUUID();
      const create = { type: 'CreateTenant' as const, id, name: 'acme' };
      await vault.runner().run(tenantDecider, tenantStream(id), create, ctx());
      const fresh = randomUUID();
      const outcomes = await vault.runner().runMany(
        tenantDecider,
        [
          { streamId: tenantStream(id), command: create },
          { streamId: tenantStream(fresh), command: { ...create, id: fresh } },
        ],
        ctx(),
      );
      expect(outcomes.map((o) => o.events.length)).toEqual([0, 1]);
      expect(outcomes[0].position).toBeNull();
      expect(outcomes[1].position).toEqual(await vault.events.headPosition());
    });

    it('a batch that decides nothing appends nothing and waits for nothing; an empty batch touches nothing', async () => {
      const id = randomUUID();
      const create = { type: 'CreateTenant' as const, id, name: 'acme' };
      await vault.runner().run(tenantDecider, tenantStream(id), create, ctx());
      const head = await vault.events.headPosition();
      await vault.projector.stop();
      const request = await inRequest(async () => {
        const runner = vault.runner(vault.events, { writeWaitMs: 50 });
        expect(await runner.runMany(tenantDecider, [{ streamId: tenantStream(id), command: create }], ctx())).toEqual([
          expect.objectContaining({ events: [], position: null }),
        ]);
        expect(await runner.runMany(tenantDecider, [], ctx())).toEqual([]);
      });
      expect(await vault.events.headPosition()).toEqual(head);
      expect(request.projectionPending).toBe(false);
    });

    it('waits for the read models once, for the last position of the batch', async () => {
      const waits: LogPosition[] = [];
      const waiter = { waitFor: (position: LogPosition, timeoutMs: number) => (waits.push(position), vault.projector.waitFor(position, timeoutMs)) };
      const streams = [counterStream(), counterStream(), counterStream()];
      const request = await inRequest(() => vault.runner(vault.events, { waiter }).runMany(counter, batchOf(streams, new Map()), ctx()));
      expect(waits).toEqual([await vault.events.headPosition()]);
      expect(request.projectionPending).toBe(false);
    });

    it('marks the request pending when nobody applies the batch in time, and the batch stands', async () => {
      await vault.projector.stop();
      const streams = [counterStream(), counterStream()];
      const request = await inRequest(() => vault.runner(vault.events, { writeWaitMs: 50 }).runMany(counter, batchOf(streams, new Map()), ctx()));
      expect(request.projectionPending).toBe(true);
      for (const stream of streams) expect(await totals(stream)).toEqual([1]);
    });

    it('refuses a batch naming one stream twice, before reading anything', async () => {
      const stream = counterStream();
      const batch = batchOf([stream, stream], new Map());
      await expect(vault.runner().runMany(counter, batch, ctx())).rejects.toThrow(/each stream at most once/);
      expect(await totals(stream)).toEqual([]);
    });

    it('passes a store failure that is not a lost race on at once', async () => {
      const refusing = new InterferingEventStore(vault.events, async ([streamId]) => {
        throw new AppendTooLargeError(streamId, 1024);
      });
      const streams = [counterStream(), counterStream()];
      const seen = new Map<string, number[]>();
      await expect(vault.runner(refusing).runMany(counter, batchOf(streams, seen), ctx())).rejects.toMatchObject({ kind: 'too_large' });
      expect(streams.map((s) => seen.get(s))).toEqual([[0], [0]]);
      for (const stream of streams) expect(await totals(stream)).toEqual([]);
    });
  });
});

describe('CommandRunner on a fresh stream', () => {
  let vault: Embedded;
  beforeEach(async () => {
    vault = await openEmbedded({ name: 'runner-fresh', collections: [], projections: [] });
  });
  afterEach(() => vault.close());

  /** The real store, counting the streams read. */
  const counting = () => {
    const reads: string[] = [];
    const store: EventStore = Object.assign(Object.create(vault.events) as EventStore, {
      readStream: (streamId: string) => (reads.push(streamId), vault.events.readStream(streamId)),
    });
    return { store, reads };
  };
  const totals = async (streamId: string) => (await vault.events.readStream(streamId)).map((e) => (e.data as CounterEvent['data']).total);

  it('a stream named by a fresh id is decided on the initial state without being read', async () => {
    const { store, reads } = counting();
    const stream = counterStream();
    const outcome = await vault.runner(store).run(counter, stream, { type: 'Add', by: 1 }, ctx(), { freshStream: true });
    expect(reads).toEqual([]);
    expect(outcome.state).toBe(1);
    expect(await totals(stream)).toEqual([1]);
  });

  it('a "fresh" stream that exists after all is a lost race: retried on what it holds, nothing overwritten', async () => {
    const stream = counterStream();
    await vault.runner().run(counter, stream, { type: 'Add', by: 10 }, ctx());
    const { store, reads } = counting();
    const states: number[] = [];
    const outcome = await vault.runner(store).run(counter, stream, (state) => (states.push(state), { type: 'Add', by: 1 }), ctx(), { freshStream: true });
    expect(states).toEqual([0, 10]);
    expect(reads).toEqual([stream]);
    expect(outcome.state).toBe(11);
    expect(await totals(stream)).toEqual([10, 11]);
  });
});
