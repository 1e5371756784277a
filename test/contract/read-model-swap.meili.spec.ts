// A rebuild swapped in while the projector is inside a commit, on a live Meilisearch: the swap
// is forced into the commit by holding the server's task queue behind a large document addition, so the projector's
// document task is still queued when the swap is enqueued, and its checkpoint task (enqueued only once the documents
// succeeded) comes after the swap.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Meilisearch, type Task, type TasksOrBatchesQuery } from 'meilisearch';
import {
  comparePositions,
  Projector,
  ProjectionSet,
  ReadModelGenerationChanged,
  rebuildReadModel,
  tenantsProjection,
  type EventStore,
  type LogPosition,
  type RebuildableReadModel,
  type TenantDocument,
} from '@vault/application';
import { SqliteEventStore } from '@vault/adapters';
import { MeiliReadModel, MeiliTenantReadModel, meiliTenantsCollection } from '@vault/adapters/meilisearch';
import { aTenant } from './read-model.contract';

const url = process.env.MEILI_URL;

if (url) {
  const apiKey = process.env.MEILI_MASTER_KEY;
  const client = new Meilisearch({ host: url, apiKey });
  const run = `vault_swap_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  let opened = 0;
  const projections = new ProjectionSet([tenantsProjection]);
  const metadata = { tenant_id: null, actor: { type: 'operator' as const, id: 'cli' }, timestamp: '2024-05-01T10:00:00.000Z', correlation_id: 'swap' };

  const open = async (): Promise<{ model: MeiliReadModel; prefix: string }> => {
    const prefix = `${run}_${++opened}`;
    const model = new MeiliReadModel({ host: url, apiKey, indexPrefix: prefix }, [meiliTenantsCollection]);
    await model.ensureSetup();
    return { model, prefix };
  };

  const createTenant = async (events: EventStore): Promise<TenantDocument> => {
    const tenant = aTenant();
    await events.append(`tenant-${tenant.id}`, [{ type: 'TenantCreated', data: tenant, metadata }], 'no_stream');
    return tenant;
  };

  describe('Meilisearch read model: a rebuild swapped in during a projector commit', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'vault-swap-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    afterAll(() => deleteIndexesStartingWith(client, `${run}_`));

    it('loses no event when the swap lands between the commit’s documents and its checkpoint', async () => {
      const { model, prefix } = await open();
      const events = SqliteEventStore.open(dir);
      const tenants = new MeiliTenantReadModel(model);
      const logger = { info: () => undefined, error: () => undefined };
      const projector = new Projector(events, model, projections, logger);
      try {
        const before = [];
        for (let i = 0; i < 5; i++) before.push(await createTenant(events));
        await projector.start();
        expect(await tenants.count()).toBe(5);

        // The rebuild replays the five, then waits at swapIn until the projector's next commit is under way.
        const atSwap = deferred();
        const release = deferred();
        const gated: RebuildableReadModel = {
          describe: () => model.describe(),
          createRebuildTarget: async () => {
            const target = await model.createRebuildTarget();
            return {
              ...target,
              swapIn: async () => {
                atSwap.resolve();
                await release.promise;
                await target.swapIn();
              },
            };
          },
        };
        const rebuilding = rebuildReadModel(events, gated, projections);
        await atSwap.promise;

        await client.index(`${prefix}_blocker`).addDocuments(blockerDocuments(), { primaryKey: 'id' });
        const sixth = await createTenant(events);
        const documents = await firstTask({ indexUids: [`${prefix}_tenants`], types: ['documentAdditionOrUpdate'], statuses: ['enqueued'] });
        release.resolve();
        await rebuilding;

        // The swap really landed inside the commit: after its document task, before its checkpoint task.
        const swap = await swapOf(`${prefix}_tenants`);
        const checkpointUids = swap.details!.swaps!.find((s) => s.indexes.includes(`${prefix}_checkpoints`))!.indexes;
        const checkpoint = await firstTaskAfter(documents.uid, { indexUids: [...checkpointUids], types: ['documentAdditionOrUpdate'] });
        expect(swap.uid).toBeGreaterThan(documents.uid);
        expect(checkpoint.uid).toBeGreaterThan(swap.uid);

        await eventually('the sixth tenant reaches the swapped-in read model and the projector catches up', async () => {
          const head = await events.headPosition();
          const at = await model.checkpoint();
          return (await tenants.get(sixth.id)) !== null && at !== null && head !== null && comparePositions(at, head) === 0;
        });
        for (const tenant of [...before, sixth]) expect(await tenants.get(tenant.id)).toEqual(tenant);
        expect(await tenants.count()).toBe(6);
        // The checkpoint the split commit wrote under the old generation's id was removed again.
        const { results } = await client.index(`${prefix}_checkpoints`).getDocuments();
        expect(results.map((d) => d.id).sort()).toEqual(['generation', expect.stringMatching(/^projector_rebuild_/)]);

        const seventh = await createTenant(events);
        await eventually('the projector carries on after the swap', async () => (await tenants.get(seventh.id)) !== null);
      } finally {
        await projector.stop();
        await events.close();
      }
    }, 120_000);

    it('writes nothing when the swap lands between the projector’s checkpoint read and its commit', async () => {
      const { model } = await open();
      const tenants = new MeiliTenantReadModel(model);
      const old = aTenant();
      await model.commit([{ collection: 'tenants', id: old.id, revision: 0n, doc: { ...old } }], at(1));
      // The projector checks the checkpoint at the start of every batch, then loads and computes its changes.
      expect(await model.checkpoint()).toEqual(at(1));

      const rebuilt = aTenant({ name: 'Rebuilt' });
      const target = await model.createRebuildTarget();
      await target.store.commit([{ collection: 'tenants', id: rebuilt.id, revision: 0n, doc: { ...rebuilt } }], at(2));
      await target.swapIn();

      const late = aTenant({ name: 'Late' });
      await expect(model.commit([{ collection: 'tenants', id: late.id, revision: 0n, doc: { ...late } }], at(3))).rejects.toBeInstanceOf(
        ReadModelGenerationChanged,
      );
      expect(await tenants.get(late.id)).toBeNull();
      expect(await tenants.get(old.id)).toBeNull();
      expect(await tenants.get(rebuilt.id)).toEqual(rebuilt);

      // The projector resumes from the rebuilt checkpoint and writes again.
      expect(await model.checkpoint()).toEqual(at(2));
      await model.commit([{ collection: 'tenants', id: late.id, revision: 0n, doc: { ...late } }], at(3));
      expect(await tenants.get(late.id)).toEqual(late);
      expect(await model.checkpoint()).toEqual(at(3));
    }, 60_000);

    it('keeps a checkpoint from before generation markers, and writes the rebuilt one under its own id', async () => {
      const { model, prefix } = await open();
      // A read model written by an earlier build: its checkpoint document has the id `projector` and no marker exists.
      await client.index(`${prefix}_checkpoints`).addDocuments([{ id: 'projector', position: '41:41' }], { primaryKey: 'id' }).waitTask();
      expect(await model.checkpoint()).toEqual(at(41));

      const target = await model.createRebuildTarget();
      await target.store.commit([], at(50));
      await target.swapIn();
      expect(await model.checkpoint()).toEqual(at(50));
      const { results } = await client.index(`${prefix}_checkpoints`).getDocuments();
      expect(results.map((d) => d.id).sort()).toEqual(['generation', expect.stringMatching(/^projector_rebuild_\d+_[0-9a-f]{6}$/)]);
    }, 60_000);
  });

  /** The first task matching `query`, polling until one exists. */
  async function firstTask(query: TasksOrBatchesQuery): Promise<Task> {
    for (const started = Date.now(); Date.now() - started < 30_000; ) {
      const { results } = await client.tasks.getTasks({ ...query, limit: 1 });
      if (results.length > 0) return results[0];
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no task matching ${JSON.stringify(query)} within 30 s`);
  }

  /** The oldest task with a uid above `uid` matching `query`, polling until one exists. */
  async function firstTaskAfter(uid: number, query: TasksOrBatchesQuery): Promise<Task> {
    for (const started = Date.now(); Date.now() - started < 30_000; ) {
      const { results } = await client.tasks.getTasks({ ...query, limit: 1000 });
      const after = results.filter((task) => task.uid > uid).sort((a, b) => a.uid - b.uid);
      if (after.length > 0) return after[0];
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no task after ${uid} matching ${JSON.stringify(query)} within 30 s`);
  }

  async function swapOf(uid: string): Promise<Task> {
    const { results } = await client.tasks.getTasks({ types: ['indexSwap'], limit: 1000 });
    const swap = results.find((task) => task.details?.swaps?.some((s) => s.indexes.includes(uid)));
    if (!swap) throw new Error(`no swap of ${uid}`);
    return swap;
  }
} else {
  describe.skip('Meilisearch rebuild-swap contract (skipped: set MEILI_URL, e.g. http://localhost:7700, and MEILI_MASTER_KEY to run it against a live server)', () => {
    it('needs MEILI_URL', () => undefined);
  });
}

const at = (n: number): LogPosition => ({ commit: BigInt(n), prepare: BigInt(n) });

/** Enough documents to keep the task queue busy for a while (well over a second on a laptop). */
function blockerDocuments(): Array<Record<string, unknown>> {
  return Array.from({ length: 150_000 }, (_, i) => ({ id: i, text: `word${i % 997} term${i % 101} token${i} ${'lorem ipsum '.repeat(4)}` }));
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function eventually(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not within ${timeoutMs / 1000} s: ${what}`);
}

async function deleteIndexesStartingWith(client: Meilisearch, prefix: string): Promise<void> {
  const { results } = await client.getRawIndexes({ limit: 1000 });
  const mine = results.filter((index) => index.uid.startsWith(prefix));
  await Promise.all(mine.map((index) => client.deleteIndex(index.uid).waitTask({ timeout: 60_000 })));
}
