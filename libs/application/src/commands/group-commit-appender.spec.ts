// Group-committed appends on the embedded event log, through the command runner as the API uses them: concurrent
// commands share a transaction, yet each keeps its own revision check, retry, 409 and error.
import { randomUUID } from 'node:crypto';
import { SqliteEventStore } from '@vault/adapters';
import { CommandContext, Decider } from '@vault/domain';
import type { AppendResult, EventStore, StreamAppend } from '../ports/event-store';
import { openEmbedded, operatorContext, type Embedded } from '@vault/test-support/embedded-stores';
import { CommandRunner } from './command-runner';
import { GroupCommitAppender } from './group-commit-appender';

type CounterCommand = { type: 'Add'; by: number | bigint };
type CounterEvent = { type: 'CounterAdded'; data: { by: number | bigint; total: number } };
const counter: Decider<CounterCommand, number, CounterEvent> = {
  initialState: () => 0,
  evolve: (_total, event) => event.data.total,
  decide: (command, total) => [{ type: 'CounterAdded', data: { by: command.by, total: total + Number(command.by) } }],
};
const counterStream = () => `tenant-counter-${randomUUID()}`;
const ctx = (): CommandContext => operatorContext(`corr-${randomUUID()}`);

/** The real store, recording the streams of every appendMany and running `before` ahead of each. */
class RecordingEventStore implements EventStore {
  readonly groups: string[][] = [];
  constructor(
    private readonly inner: EventStore,
    private readonly before: (streamIds: string[], call: number) => Promise<unknown> = async () => undefined,
  ) {}
  append: EventStore['append'] = (streamId, events, expected) => this.appendMany([{ streamId, events, expected }]).then(([r]) => r);
  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    const streams = batch.map(({ streamId }) => streamId);
    this.groups.push(streams);
    await this.before(streams, this.groups.length);
    return this.inner.appendMany(batch);
  }
  readStream: EventStore['readStream'] = (streamId) => this.inner.readStream(streamId);
  readAll: EventStore['readAll'] = (after, limit) => this.inner.readAll(after, limit);
  headPosition: EventStore['headPosition'] = () => this.inner.headPosition();
  backlog: EventStore['backlog'] = (after, cap) => this.inner.backlog(after, cap);
  subscribe: EventStore['subscribe'] = (options) => this.inner.subscribe(options);
  close = async () => undefined;
}

describe('group-committed appends', () => {
  let vault: Embedded;
  beforeEach(async () => {
    vault = await openEmbedded({ name: 'group-commit', collections: [], projections: [] });
  });
  afterEach(() => vault.close());

  const runner = (store: EventStore, maxAttempts = 5) => new CommandRunner(store, vault.projector, { maxAttempts, writeWaitMs: 2000, groupCommit: true });
  const totals = async (streamId: string) => (await vault.events.readStream(streamId)).map((e) => (e.data as CounterEvent['data']).total);
  const add = (r: CommandRunner, stream: string, by: number | bigint = 1) => r.run(counter, stream, { type: 'Add', by }, ctx());

  it('concurrent commands on different streams share one transaction, each answered with its own position', async () => {
    const store = new RecordingEventStore(vault.events);
    const r = runner(store);
    const streams = [counterStream(), counterStream(), counterStream()];
    const outcomes = await Promise.all(streams.map((s) => add(r, s)));
    expect(store.groups).toEqual([streams]);
    for (const stream of streams) expect(await totals(stream)).toEqual([1]);
    const positions = outcomes.map((o) => o.position!.commit);
    expect(positions).toEqual([positions[0], positions[0] + 1n, positions[0] + 2n]);
  });

  it('commands arriving while a group is being written form the next group', async () => {
    const [a, b] = [counterStream(), counterStream()];
    let second: Promise<unknown> | null = null;
    // While the first group is in its transaction, another command queues its append.
    const store = new RecordingEventStore(vault.events, async (_streams, call) => {
      if (call !== 1) return;
      second = add(r, b);
      await new Promise((resolve) => setImmediate(resolve));
    });
    const r = runner(store);
    await add(r, a);
    await second;
    expect(store.groups).toEqual([[a], [b]]);
    expect(await totals(b)).toEqual([1]);
  });

  it('a lost race on one stream retries that command alone; the other commands of the group are written once', async () => {
    const [raced, other] = [counterStream(), counterStream()];
    // Before the first group's transaction, another writer appends to `raced`: its revision in the group is stale.
    const store = new RecordingEventStore(vault.events, (_streams, call) => (call === 1 ? vault.events.append(raced, [winner()], 'any') : Promise.resolve()));
    const r = runner(store);
    const [racedOutcome, otherOutcome] = await Promise.all([add(r, raced), add(r, other)]);
    expect(await totals(raced)).toEqual([10, 11]);
    expect(racedOutcome.state).toBe(11);
    expect(await totals(other)).toEqual([1]);
    expect(otherOutcome.state).toBe(1);
    // The group, then the group without the stale stream, then the retried command.
    expect(store.groups).toEqual([[raced, other], [other], [raced]]);
  });

  it('a race lost on the last attempt answers that command 409 and no other', async () => {
    const [raced, other] = [counterStream(), counterStream()];
    const store = new RecordingEventStore(vault.events, (_streams, call) => (call === 1 ? vault.events.append(raced, [winner()], 'any') : Promise.resolve()));
    const r = runner(store, 1);
    const [racedResult, otherResult] = await Promise.allSettled([add(r, raced), add(r, other)]);
    expect(racedResult).toMatchObject({ status: 'rejected', reason: { kind: 'conflict' } });
    expect(otherResult).toMatchObject({ status: 'fulfilled', value: { state: 1 } });
    expect(await totals(raced)).toEqual([10]);
    expect(await totals(other)).toEqual([1]);
  });

  it('two commands on one stream in one turn go to successive groups, the second decided again on the first', async () => {
    const store = new RecordingEventStore(vault.events);
    const r = runner(store);
    const stream = counterStream();
    const outcomes = await Promise.all([add(r, stream), add(r, stream)]);
    expect(await totals(stream)).toEqual([1, 2]);
    expect(outcomes.map((o) => o.state).sort()).toEqual([1, 2]);
  });

  it('a failure of one command in the group (its data cannot be stored) fails that command alone', async () => {
    const store = new RecordingEventStore(vault.events);
    const r = runner(store);
    const [bad, good] = [counterStream(), counterStream()];
    // A bigint does not serialise: the store's transaction throws a TypeError and rolls back the whole group.
    const [badResult, goodResult] = await Promise.allSettled([add(r, bad, 1n), add(r, good)]);
    expect(badResult).toMatchObject({ status: 'rejected', reason: expect.any(TypeError) });
    expect(goodResult).toMatchObject({ status: 'fulfilled', value: { state: 1 } });
    expect(await totals(bad)).toEqual([]);
    expect(await totals(good)).toEqual([1]);
  });

  it('a command is answered only once its events are committed: another connection to the log reads them then', async () => {
    const other = SqliteEventStore.open(vault.dir);
    try {
      const r = runner(vault.events);
      const streams = Array.from({ length: 20 }, counterStream);
      const seenAtAnswer = await Promise.all(streams.map(async (s) => (await add(r, s), (await other.readStream(s)).length)));
      // What another process (or this one restarted after a SIGKILL) reads at the moment each answer was given.
      expect(seenAtAnswer).toEqual(streams.map(() => 1));
    } finally {
      await other.close();
    }
  });

  it('flush() resolves once every queued append is written', async () => {
    const appender = new GroupCommitAppender(vault.events);
    const streams = [counterStream(), counterStream()];
    const results: AppendResult[] = [];
    for (const s of streams) void appender.append(s, [winner()], 'no_stream').then((result) => results.push(result));
    await appender.flush();
    expect(results).toHaveLength(2);
    for (const s of streams) expect(await totals(s)).toEqual([10]);
  });
});

/** Another writer's event on a stream: total 10. */
const winner = () => ({
  type: 'CounterAdded',
  data: { by: 10, total: 10 },
  metadata: { tenant_id: null, actor: { type: 'operator' as const, id: 'cli' }, timestamp: new Date().toISOString(), correlation_id: 'winner' },
});
