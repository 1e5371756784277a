// The command runner on the embedded event log: lost races are real (another request's command appended to the same
// stream between our read and our append, so the SQLite store itself refuses our revision), not a thrown fake.
import { randomUUID } from 'node:crypto';
import { CommandContext, Decider, DomainError, tenantDecider, tenantStream } from '@vault/domain';
import type { AppendResult, EventStore, EventToAppend, ExpectedRevision } from '../ports/event-store';
import { runWithRequestContext, type RequestContext } from '../request-context';
import { openEmbedded, operatorContext, type Embedded } from '../testing/embedded';

/** A running total: each Add records the total it makes, so the stored events show which state it was decided on. */
type CounterCommand = { type: 'Add'; by: number };
type CounterEvent = { type: 'CounterAdded'; data: { by: number; total: number } };
const counter: Decider<CounterCommand, number, CounterEvent> = {
  initialState: () => 0,
  evolve: (_total, event) => event.data.total,
  decide: (command, total) => [{ type: 'CounterAdded', data: { by: command.by, total: total + command.by } }],
};

/**
 * Before each of the first `losses` appends it forwards, lets another request run its whole command on the same
 * stream first: our append then carries a revision the real store no longer has, exactly as in a race.
 */
class RacedEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private losses: number,
    private readonly competitor: (streamId: string) => Promise<unknown>,
  ) {}

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.losses > 0) {
      this.losses -= 1;
      await this.competitor(streamId);
    }
    return this.inner.append(streamId, events, expected);
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
  const totals = async (streamId: string) => (await vault.events.readStream(streamId)).map((e) => (e.data as CounterEvent['data']).total);

  describe('a lost race', () => {
    it.each<[string, { losses: number; maxAttempts: number; seen: number[]; stored: number[] }]>([
      ['no race: decided once on the state read', { losses: 0, maxAttempts: 3, seen: [0], stored: [1] }],
      ['lost once: retried from the state the winner left', { losses: 1, maxAttempts: 3, seen: [0, 10], stored: [10, 11] }],
      ['lost on every attempt but the last', { losses: 2, maxAttempts: 3, seen: [0, 10, 20], stored: [10, 20, 21] }],
    ])('%s', async (_, { losses, maxAttempts, seen, stored }) => {
      const stream = counterStream();
      const runner = vault.runner(new RacedEventStore(vault.events, losses, addTen), { maxAttempts });
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
      const runner = vault.runner(new RacedEventStore(vault.events, 3, addTen), { maxAttempts: 3 });
      const states: number[] = [];
      const run = runner.run(counter, stream, (state) => (states.push(state), { type: 'Add', by: 1 }), ctx());
      await expect(run).rejects.toBeInstanceOf(DomainError);
      await expect(run).rejects.toMatchObject({ kind: 'conflict' });
      expect(states).toEqual([0, 10, 20]);
      expect(await totals(stream)).toEqual([10, 20, 30]);
    });

    it('a command given as a value is decided again on the fresh state', async () => {
      const stream = counterStream();
      const runner = vault.runner(new RacedEventStore(vault.events, 1, addTen));
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
    it.each<[string, { projectorRuns: boolean; pending: boolean }]>([
      ['the projector applies the write in time: not pending', { projectorRuns: true, pending: false }],
      ['nobody applies it before the wait runs out: pending, and the write stands', { projectorRuns: false, pending: true }],
    ])('%s', async (_, { projectorRuns, pending }) => {
      if (!projectorRuns) await vault.projector.stop();
      const stream = counterStream();
      const request = await inRequest(() => vault.runner(vault.events, { writeWaitMs: 50 }).run(counter, stream, { type: 'Add', by: 1 }, ctx()));
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

  it('an error that is not a lost race is not retried', async () => {
    const id = randomUUID();
    await vault.runner().run(tenantDecider, tenantStream(id), { type: 'CreateTenant', id, name: 'acme' }, ctx());
    let attempts = 0;
    const run = vault.runner().run(
      tenantDecider,
      tenantStream(id),
      () => (attempts++, { type: 'CreateTenant' as const, id, name: 'another name' }),
      ctx(),
    );
    await expect(run).rejects.toMatchObject({ kind: 'conflict', message: 'A tenant with this id already exists.' });
    expect(attempts).toBe(1);
  });
});
