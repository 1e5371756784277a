// A commit that reports a rebuild swapped in under its batch (ReadModelGenerationChanged, as the Meilisearch store
// throws it) makes the projector replay from the store's checkpoint at once, like a swap it notices itself: no error
// logged, no one-second retry. The report comes from a wrapper around the real embedded read model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationsTable, SqliteEventStore, SqliteReadModel, tenantsTable } from '@vault/adapters';
import {
  applicationsProjection,
  ProjectionSet,
  ProjectionStore,
  Projector,
  ReadModelGenerationChanged,
  tenantsProjection,
} from '@vault/application';

/** Refuses its first commit the way a store does when a rebuild was swapped in during the batch. */
class SwappedOnceStore implements ProjectionStore {
  commits = 0;
  constructor(private readonly inner: ProjectionStore) {}

  checkpoint: ProjectionStore['checkpoint'] = () => this.inner.checkpoint();
  load: ProjectionStore['load'] = (collection, ids) => this.inner.load(collection, ids);
  commit: ProjectionStore['commit'] = async (changes, checkpoint) => {
    this.commits += 1;
    if (this.commits === 1) throw new ReadModelGenerationChanged();
    return this.inner.commit(changes, checkpoint);
  };
}

describe('projector when a commit reports a rebuild swapped in under its batch', () => {
  let dir: string;
  let events: SqliteEventStore;
  let model: SqliteReadModel;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-generation-'));
    events = SqliteEventStore.open(dir);
    model = SqliteReadModel.open(dir, [tenantsTable, applicationsTable]);
  });
  afterEach(async () => {
    await model.close();
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replays from the store checkpoint at once and catches up, logging no error', async () => {
    const metadata = { tenant_id: null, actor: { type: 'operator' as const, id: 'cli' }, timestamp: new Date().toISOString(), correlation_id: 'c' };
    for (let n = 0; n < 3; n++) await events.append(`tenant-probe-${n}`, [{ type: 'Probe', data: { n }, metadata }], 'no_stream');
    const store = new SwappedOnceStore(model);
    const lines: Array<{ level: string; message: string }> = [];
    const projector = new Projector(events, store, new ProjectionSet([tenantsProjection, applicationsProjection]), {
      info: (message) => lines.push({ level: 'info', message }),
      error: (message) => lines.push({ level: 'error', message }),
    });
    await projector.start();
    await projector.stop();
    expect(store.commits).toBe(2);
    expect(await model.checkpoint()).toEqual(await events.headPosition());
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    // Only the swap is logged: a retry after an error would have logged 'retrying' too.
    expect(lines).toEqual([{ level: 'info', message: 'the read model was swapped by a rebuild; resuming from its checkpoint' }]);
  });
});
