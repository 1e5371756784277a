// Two "processes" on one data dir (each its own event store, read model and lease connection, as two API processes
// have): the lease holder projects, the other follows and answers its writes from the holder's commits; a holder that
// stops is replaced, and a holder frozen past its lease's safe term commits nothing.
import { randomUUID } from 'node:crypto';
import { SqliteEventStore, SqliteProjectorLease, SqliteReadModel, tenantsTable } from '@vault/adapters';
import { tenantDecider, tenantStream } from '@vault/domain';
import { CommandRunner } from '../commands/command-runner';
import { operatorContext, recordingLogger, tempDataDir } from '@vault/test-support/embedded-stores';
import { ProjectionSet } from './apply-batch';
import { LeasedProjector } from './leased-projector';
import { tenantsProjection } from './tenants.projection';

const TIMES = { expireMs: 600, safeMs: 300 };

interface Process {
  events: SqliteEventStore;
  model: SqliteReadModel;
  lease: SqliteProjectorLease;
  projector: LeasedProjector;
  logger: ReturnType<typeof recordingLogger>;
  /** Moves this process's clock (as a frozen event loop sees it on waking). */
  skewMs: number;
  createTenant(name: string): Promise<{ applied: boolean }>;
  tenantNames(): string[];
}

describe('LeasedProjector: several processes on one data dir', () => {
  let data: ReturnType<typeof tempDataDir>;
  const processes: Process[] = [];
  beforeEach(() => {
    data = tempDataDir('leased');
  });
  afterEach(async () => {
    for (const p of processes.splice(0)) {
      await p.projector.stop();
      p.lease.close();
      await p.model.close();
      await p.events.close();
    }
    data.remove();
  });

  const start = async (renewMs = 50, clock?: () => number): Promise<Process> => {
    const events = SqliteEventStore.open(data.dir);
    const model = SqliteReadModel.open(data.dir, [tenantsTable]);
    const logger = recordingLogger();
    const p = { skewMs: 0 } as Process;
    const now = clock ?? (() => Date.now() + p.skewMs);
    const lease = SqliteProjectorLease.open(data.dir, TIMES, now);
    const projector = new LeasedProjector(events, model, new ProjectionSet([tenantsProjection]), logger, lease, { now: () => new Date(now()) }, renewMs);
    Object.assign(p, {
      events,
      model,
      lease,
      projector,
      logger,
      createTenant: async (name: string) => {
        const id = randomUUID();
        // Appended through this process; then waited for as its writes are (the API's runner waits on the same waiter).
        const runner = new CommandRunner(events, { waitFor: async () => true }, { maxAttempts: 5, writeWaitMs: 0 });
        const { position } = await runner.run(tenantDecider, tenantStream(id), { type: 'CreateTenant', id, name }, operatorContext(name));
        return { applied: await projector.waitFor(position!, 3000) };
      },
      tenantNames: () => (model.database.prepare('SELECT name FROM tenants ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name),
    });
    processes.push(p);
    await projector.start();
    return p;
  };

  const eventually = async (check: () => boolean, timeoutMs = 5000) => {
    const deadline = Date.now() + timeoutMs;
    while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return check();
  };

  it('one of two projects; a write through either is answered once applied and read through both', async () => {
    const a = await start();
    const b = await start();
    expect([a.projector.isProjecting, b.projector.isProjecting]).toEqual([true, false]);

    expect(await b.createTenant('through-b')).toEqual({ applied: true });
    expect(await a.createTenant('through-a')).toEqual({ applied: true });
    expect(a.tenantNames()).toEqual(['through-a', 'through-b']);
    expect(b.tenantNames()).toEqual(['through-a', 'through-b']);
    expect(b.logger.lines).toContainEqual({ level: 'info', message: 'another process holds the projector lease: following its commits' });
  });

  it('when the holder stops, the other takes the lease over and projects what is written after', async () => {
    const a = await start();
    const b = await start();
    await a.projector.stop();
    expect(await eventually(() => b.projector.isProjecting, 2000)).toBe(true);

    expect(await b.createTenant('after-a')).toEqual({ applied: true });
    expect(b.tenantNames()).toEqual(['after-a']);
    expect((await b.projector.status()).caughtUp).toBe(true);
  });

  it('a holder frozen past its safe term commits nothing, and the process that takes its expired lease applies the write', async () => {
    // The holder renews rarely, so only its fence can stop it.
    const a = await start(60_000);
    const b = await start();
    a.skewMs = TIMES.safeMs + 100;
    const written = b.createTenant('while-a-froze');
    expect(await eventually(() => !a.projector.isProjecting)).toBe(true);
    expect(a.logger.lines).toContainEqual({ level: 'info', message: 'projector lease lost: following the read model until it can be taken again' });
    expect(b.tenantNames()).toEqual([]);

    // From b's clock, a's lease has now expired.
    b.skewMs = TIMES.expireMs + 100;
    expect(await written).toEqual({ applied: true });
    expect(b.projector.isProjecting).toBe(true);
    expect(a.tenantNames()).toEqual(['while-a-froze']);
  });

  it('a start-up whose lease runs out before its first catch-up ends as a follower instead of waiting for ever', async () => {
    // An event the read model has not applied yet, so the first catch-up must commit.
    const events = SqliteEventStore.open(data.dir);
    const id = randomUUID();
    await new CommandRunner(events, { waitFor: async () => true }, { maxAttempts: 1, writeWaitMs: 0 }).run(
      tenantDecider,
      tenantStream(id),
      { type: 'CreateTenant', id, name: 'before-start' },
      operatorContext('before-start'),
    );
    await events.close();
    // The clock reads as if the event loop stood still for 4 s right after the lease was taken.
    let reads = 0;
    const late = await start(60_000, () => Date.now() + (reads++ === 0 ? 0 : 4000));
    expect(late.projector.isProjecting).toBe(false);
    expect(late.logger.lines).toContainEqual({ level: 'info', message: 'projector lease lost: following the read model until it can be taken again' });
    expect(late.tenantNames()).toEqual([]);
  });
});
