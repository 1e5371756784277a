// The projector's own decisions when the read model changes under it, on the embedded stores: a rebuild swapped in
// (noticed before a batch, or reported by the store's commit) makes it resume from the store's checkpoint at once; an
// ordinary failure is logged and retried; restart() pauses, runs the swap, and resumes from the swapped-in checkpoint.
// The swapped-in read model is a real rebuild by "another process" (a second SqliteReadModel on the same data dir),
// stopped after the first event, so that only a projector that resumes from the store's checkpoint fills it in.
import { randomUUID } from 'node:crypto';
import { SqliteReadModel, tenantsTable } from '@vault/adapters';
import { tenantDecider, tenantStream } from '@vault/domain';
import { ReadModelGenerationChanged, type ProjectionStore } from '../ports/projection-store';
import { openEmbedded, operatorContext, type Embedded } from '@vault/test-support/embedded-stores';
import { applyBatch, ProjectionSet } from './apply-batch';
import { Projector } from './projector';
import { tenantsProjection } from './tenants.projection';

type Trouble = 'swap' | 'swap, then report it' | 'fail';

/** The live read model, through which a spec makes the next commit run into trouble. */
class TroubledStore implements ProjectionStore {
  private next: { trouble: 'swap, then report it' | 'fail'; swap: () => Promise<void> } | null = null;
  constructor(private readonly inner: SqliteReadModel) {}

  troubleNextCommit(trouble: 'swap, then report it' | 'fail', swap: () => Promise<void>): void {
    this.next = { trouble, swap };
  }

  checkpoint: ProjectionStore['checkpoint'] = () => this.inner.checkpoint();
  load: ProjectionStore['load'] = (collection, ids) => this.inner.load(collection, ids);
  commit: ProjectionStore['commit'] = async (changes, checkpoint) => {
    const trouble = this.next;
    this.next = null;
    if (trouble?.trouble === 'fail') throw new Error('disk I/O error');
    if (trouble) {
      // As the Meilisearch store reports it: the rebuilt generation is live, its checkpoint behind this batch.
      await trouble.swap();
      throw new ReadModelGenerationChanged();
    }
    return this.inner.commit(changes, checkpoint);
  };
}

const SWAP_NOTICED = { level: 'info', message: 'the read model was swapped by a rebuild; resuming from its checkpoint' };
const FAILED = { level: 'error', message: 'projector stopped on an error; retrying from its checkpoint' };

describe('Projector when the read model changes under it', () => {
  let vault: Embedded;
  let store: TroubledStore;
  let projector: Projector;
  beforeEach(async () => {
    vault = await openEmbedded({ name: 'projector', collections: [tenantsTable], projections: [tenantsProjection], start: false });
    store = new TroubledStore(vault.model);
    projector = new Projector(vault.events, store, new ProjectionSet([tenantsProjection]), vault.logger);
    await projector.start();
  });
  afterEach(async () => {
    await projector.stop();
    await vault.close();
  });

  /** Creates a tenant as the CLI does (answering once the event is durable), and returns its log position. */
  const createTenant = async (name: string) => {
    const id = randomUUID();
    const runner = vault.runner(vault.events, { waiter: { waitFor: async () => true } });
    return (await runner.run(tenantDecider, tenantStream(id), { type: 'CreateTenant', id, name }, operatorContext(name))).position!;
  };
  const tenantNames = () =>
    (vault.model.database.prepare('SELECT name FROM tenants ORDER BY name').all() as Array<{ name: string }>).map((r) => r.name);
  const applied = async () => expect(await projector.waitFor((await vault.events.headPosition())!, 5000)).toBe(true);

  /**
   * Another process rebuilds the read model, but only as far as the log's first event, and swaps it in; this process's
   * read model then follows the pointer to it (as its pointer watch does). The projector is not told.
   */
  const swapInRebuildOfFirstEvent = async () => {
    const other = SqliteReadModel.open(vault.dir, [tenantsTable]);
    try {
      const target = await other.createRebuildTarget();
      const first = await vault.events.readAll(null, 1);
      await target.store.commit(await applyBatch(first, new ProjectionSet([tenantsProjection]), target.store), first[0].position);
      await target.swapIn();
    } finally {
      await other.close();
    }
    expect(vault.model.followPointer()).toBe(true);
  };

  it.each<[string, Trouble, object[]]>([
    ['a rebuild swapped in between two batches is noticed before the next: replayed from its checkpoint at once', 'swap', [SWAP_NOTICED]],
    ['a commit that reports a rebuild swapped in under its batch: replayed from the new checkpoint at once', 'swap, then report it', [SWAP_NOTICED]],
    ['an ordinary commit failure is no swap: logged as an error and retried from the checkpoint', 'fail', [FAILED]],
  ])('%s', async (_, trouble, logged) => {
    for (const name of ['t1', 't2', 't3']) await createTenant(name);
    await applied();
    if (trouble === 'swap') await swapInRebuildOfFirstEvent();
    else store.troubleNextCommit(trouble, swapInRebuildOfFirstEvent);

    await createTenant('t4');
    await applied();
    // The swapped-in model held t1 only: t2 and t3 are there because the projector replayed from its checkpoint.
    expect(tenantNames()).toEqual(['t1', 't2', 't3', 't4']);
    expect(await vault.model.checkpoint()).toEqual(await vault.events.headPosition());
    expect(vault.logger.lines).toEqual(logged);
  });

  it('restart pauses, runs the swap, and resolves once caught up from the swapped-in checkpoint', async () => {
    for (const name of ['t1', 't2', 't3']) await createTenant(name);
    await applied();
    let appliedDuringSwap: unknown = 'swap not run';
    await projector.restart(async () => {
      // Written while the swap is under way: a projector still following would apply it to the model being replaced.
      const during = await createTenant('t4');
      await new Promise((resolve) => setTimeout(resolve, 200));
      appliedDuringSwap = await projector.waitFor(during, 0);
      await swapInRebuildOfFirstEvent();
    });
    expect(appliedDuringSwap).toBe(false);
    // No waiting here: restart answers only once the replay has caught up.
    expect(tenantNames()).toEqual(['t1', 't2', 't3', 't4']);
    expect(await vault.model.checkpoint()).toEqual(await vault.events.headPosition());
    expect(vault.logger.lines).toEqual([]);
  });

  it('a restart after stop runs the swap but does not resume', async () => {
    await createTenant('t1');
    await applied();
    await projector.stop();
    let swapped = false;
    await projector.restart(async () => {
      swapped = true;
    });
    await createTenant('t2');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(swapped).toBe(true);
    expect(tenantNames()).toEqual(['t1']);
  });
});
