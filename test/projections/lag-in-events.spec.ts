// Lag, readiness and rebuild progress count events and seconds, also on a store whose positions are byte offsets
// (EventStoreDB), where a difference of positions is no event count.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'express';
import { applicationsTable, SqliteEventStore, SqliteReadModel, tenantsTable } from '@vault/adapters';
import {
  applicationsProjection,
  EventToAppend,
  ProjectionSet,
  Projector,
  rebuildReadModel,
  RebuildProgress,
  tenantsProjection,
} from '@vault/application';
import type { ReadModels } from '@vault/nest';
import { HealthController } from '../../apps/api/src/health/health.controller';
import { ByteOffsetEventStore } from '../support/byte-offset-event-store';

const WRITTEN_AT = new Date('2024-05-01T10:00:00.000Z');
const silent = { info: () => undefined, error: () => undefined };
const projections = () => new ProjectionSet([tenantsProjection, applicationsProjection]);

/** An event no projection handles: the lag arithmetic is what is under test, not the projections. */
const probe = (n: number, at: Date = WRITTEN_AT): EventToAppend => ({
  type: 'LagProbe',
  data: { n },
  metadata: { tenant_id: null, actor: { type: 'operator', id: 'cli' }, timestamp: at.toISOString(), correlation_id: `probe-${n}` },
});

describe('lag in events on a log whose positions are byte offsets', () => {
  let dir: string;
  let sqlite: SqliteEventStore;
  let events: ByteOffsetEventStore;
  let model: SqliteReadModel;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vault-lag-'));
    sqlite = SqliteEventStore.open(dir);
    events = new ByteOffsetEventStore(sqlite);
    model = SqliteReadModel.open(dir, [tenantsTable, applicationsTable]);
    for (let n = 0; n < 5; n++) await events.append(`tenant-probe-${n}`, [probe(n)], 'no_stream');
  });
  afterEach(async () => {
    await model.close();
    await sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Applies the 5 events written so far, then stops, so the next appends stay pending. */
  const caughtUpThenStopped = async (now: Date = new Date()) => {
    const projector = new Projector(events, model, projections(), silent, { now: () => now });
    await projector.start();
    await projector.stop();
    return projector;
  };

  it('the projector reports 3 pending events and the age of the oldest, not 2,100 bytes', async () => {
    const projector = await caughtUpThenStopped(new Date(WRITTEN_AT.getTime() + 5_000));
    for (let n = 5; n < 8; n++) await events.append(`tenant-probe-${n}`, [probe(n)], 'no_stream');
    expect(await projector.status()).toMatchObject({ lag: { events: 3, eventsCapped: false, seconds: 5 }, checkpoint: '3500:3500', head: '5600:5600' });
  });

  it('readiness with an external projector: 3 events behind is ready, not a 503', async () => {
    await caughtUpThenStopped();
    for (let n = 5; n < 8; n++) await events.append(`tenant-probe-${n}`, [probe(n, new Date())], 'no_stream');
    const statuses: number[] = [];
    const res = { status: (code: number) => statuses.push(code) } as unknown as Response;
    const health = new HealthController(events, { projectionStore: model } as unknown as ReadModels, null);
    const body = await health.ready(res);
    expect(statuses).toEqual([]);
    expect(body).toMatchObject({ ready: true, projection: { mode: 'external', lag_events: 3, lag_events_capped: false, caught_up: false } });
  });

  it('readiness with an external projector: events waiting for over 30 s are not ready, however few', async () => {
    await caughtUpThenStopped();
    await events.append('tenant-probe-5', [probe(5, new Date(Date.now() - 31_000))], 'no_stream');
    const statuses: number[] = [];
    const res = { status: (code: number) => statuses.push(code) } as unknown as Response;
    const body = await new HealthController(events, { projectionStore: model } as unknown as ReadModels, null).ready(res);
    expect(statuses).toEqual([503]);
    expect(body).toMatchObject({ ready: false, reason: 'the oldest event waiting to be applied is over 30 s old', projection: { lag_events: 1 } });
  });

  it('the rebuild ends at 5 of 5 events, 100%, not 5 of 3,500', async () => {
    const progress: RebuildProgress[] = [];
    const result = await rebuildReadModel(events, model, projections(), (p) => progress.push(p));
    expect(result.events).toBe(5);
    expect(progress[progress.length - 1]).toMatchObject({ events: 5, total: 5, percent: 100, etaSeconds: 0 });
  });
});
