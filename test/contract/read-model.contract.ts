// The behaviour every read-model adapter must show (projection store, rebuild, directory queries); one spec per adapter.
// Ids are random, so the suite also runs against a long-lived server that keeps data between runs.
import { randomUUID } from 'node:crypto';
import {
  PURGE_TENANT,
  type ApplicationDocument,
  type ApplicationReadModel,
  type DocumentChange,
  type LogPosition,
  type ProjectionStore,
  type RebuildableReadModel,
  type TenantDocument,
  type TenantReadModel,
} from '@vault/application';

export interface ReadModelsUnderTest {
  projectionStore: ProjectionStore;
  rebuildable: RebuildableReadModel;
  tenants: TenantReadModel;
  applications: ApplicationReadModel;
}

export interface OpenedReadModels {
  readModels: ReadModelsUnderTest;
  /** Runs after a rebuild's swapIn, where a reader must switch explicitly (the embedded model follows its pointer). */
  afterSwap?(): Promise<void>;
  dispose(): Promise<void>;
}

let sequence = 0n;
const nextPosition = (): LogPosition => {
  sequence += 1n;
  return { commit: sequence, prepare: sequence };
};

export const aTenant = (overrides: Partial<TenantDocument> = {}): TenantDocument => ({
  id: randomUUID(),
  name: 'Acme',
  created_by: 'operator',
  created_at: '2024-05-01T10:00:00.000Z',
  ...overrides,
});

export const anApplication = (overrides: Partial<ApplicationDocument> = {}): ApplicationDocument => ({
  id: randomUUID(),
  tenant_id: randomUUID(),
  name: 'Checkout "backend" \\ v2',
  type: 'private',
  permissions: ['token:create', 'token:read'],
  rules: [{ description: 'cards', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }],
  expires_at: null,
  key_hash: randomUUID().replace(/-/g, ''),
  created_by: 'operator',
  created_at: '2024-05-01T10:00:00.000Z',
  modified_by: null,
  modified_at: null,
  ...overrides,
});

const upsert = (collection: string, doc: { id: string }, revision = 0n): DocumentChange => ({
  collection,
  id: doc.id,
  revision,
  doc: doc as unknown as Record<string, unknown>,
});
const remove = (collection: string, id: string, revision: bigint): DocumentChange => ({ collection, id, revision, doc: null });

export function describeReadModelContract(name: string, open: () => Promise<OpenedReadModels>): void {
  describe(`${name} read-model contract`, () => {
    let opened: OpenedReadModels;
    let models: ReadModelsUnderTest;
    const commit = (changes: DocumentChange[]) => models.projectionStore.commit(changes, nextPosition());

    beforeAll(async () => {
      opened = await open();
      models = opened.readModels;
    });
    afterAll(() => opened.dispose());

    it('has no checkpoint when fresh, then the one the last commit wrote', async () => {
      const fresh = await open();
      try {
        expect(await fresh.readModels.projectionStore.checkpoint()).toBeNull();
        const first = nextPosition();
        await fresh.readModels.projectionStore.commit([upsert('tenants', aTenant())], first);
        expect(await fresh.readModels.projectionStore.checkpoint()).toEqual(first);
        const second = nextPosition();
        await fresh.readModels.projectionStore.commit([], second);
        expect(await fresh.readModels.projectionStore.checkpoint()).toEqual(second);
      } finally {
        await fresh.dispose();
      }
    });

    it('upserts documents and loads them back with their revision', async () => {
      const tenant = aTenant();
      const app = anApplication({ tenant_id: tenant.id });
      await commit([upsert('tenants', tenant), upsert('applications', app, 3n)]);
      const missing = randomUUID();
      const loaded = await models.projectionStore.load('applications', [app.id, missing]);
      expect(loaded.get(app.id)).toEqual({ revision: 3n, doc: app });
      expect(loaded.has(missing)).toBe(false);
      expect((await models.projectionStore.load('tenants', [tenant.id])).get(tenant.id)).toEqual({ revision: 0n, doc: tenant });
      expect(await models.projectionStore.load('tenants', [])).toEqual(new Map());
    });

    it('replaces a document on a later upsert', async () => {
      const app = anApplication();
      await commit([upsert('applications', app, 0n)]);
      const renamed = { ...app, name: 'renamed', modified_by: 'someone', modified_at: '2024-05-02T10:00:00.000Z' };
      await commit([upsert('applications', renamed, 1n)]);
      expect((await models.projectionStore.load('applications', [app.id])).get(app.id)).toEqual({ revision: 1n, doc: renamed });
      expect(await models.applications.get(app.tenant_id, app.id)).toEqual(renamed);
    });

    it('deletes a document on a null change (a tombstone may remain for replays) and no query returns it', async () => {
      const app = anApplication();
      await commit([upsert('applications', app, 0n)]);
      await commit([remove('applications', app.id, 1n)]);
      const stored = (await models.projectionStore.load('applications', [app.id])).get(app.id);
      if (stored) expect(stored).toEqual({ revision: 1n, doc: null });
      expect(await models.applications.get(app.tenant_id, app.id)).toBeNull();
      expect(await models.applications.findByKeyHash(app.key_hash)).toBeNull();
      expect(await models.applications.list(app.tenant_id, { page: 1, size: 10 })).toEqual({ items: [], total: 0 });
    });

    it('gets tenants by id and counts them', async () => {
      const before = await models.tenants.count();
      const tenants = [aTenant({ name: 'One' }), aTenant({ name: 'Two' })];
      await commit(tenants.map((t) => upsert('tenants', t)));
      expect(await models.tenants.get(tenants[1].id)).toEqual(tenants[1]);
      expect(await models.tenants.get(randomUUID())).toBeNull();
      expect(await models.tenants.count()).toBe(before + 2);
    });

    it('drops a deleted tenant’s applications on its purge and keeps its tenant document (the tombstone), and no other tenant’s', async () => {
      const gone = aTenant({ deleted: true });
      const kept = aTenant();
      const doomed = anApplication({ tenant_id: gone.id });
      const survivor = anApplication({ tenant_id: kept.id });
      await commit([upsert('tenants', gone), upsert('tenants', kept), upsert('applications', doomed), upsert('applications', survivor)]);
      await commit([{ collection: PURGE_TENANT, id: gone.id, revision: 1n, doc: null }]);
      expect(await models.applications.get(gone.id, doomed.id)).toBeNull();
      expect(await models.applications.findByKeyHash(doomed.key_hash)).toBeNull();
      expect((await models.applications.list(gone.id, { page: 1, size: 20 })).total).toBe(0);
      expect(await models.applications.get(kept.id, survivor.id)).toEqual(survivor);
      expect(await models.tenants.get(gone.id)).toEqual(gone);
    });

    it('finds an application by its key hash, and no longer by the old hash after the key is regenerated', async () => {
      const app = anApplication();
      await commit([upsert('applications', app, 0n)]);
      expect(await models.applications.findByKeyHash(app.key_hash)).toEqual(app);
      const regenerated = { ...app, key_hash: randomUUID().replace(/-/g, '') };
      await commit([upsert('applications', regenerated, 1n)]);
      expect(await models.applications.findByKeyHash(app.key_hash)).toBeNull();
      expect(await models.applications.findByKeyHash(regenerated.key_hash)).toEqual(regenerated);
      expect(await models.applications.findByKeyHash('"\\ OR key_hash EXISTS')).toBeNull();
    });

    it('gets an application only within its tenant', async () => {
      const app = anApplication();
      await commit([upsert('applications', app)]);
      expect(await models.applications.get(app.tenant_id, app.id)).toEqual(app);
      expect(await models.applications.get(randomUUID(), app.id)).toBeNull();
      expect(await models.applications.get(app.tenant_id, randomUUID())).toBeNull();
      expect(await models.applications.get(`${app.tenant_id}" OR tenant_id != "x`, app.id)).toBeNull();
    });

    it('lists a tenant’s applications newest first, then by id, with the true total on every page', async () => {
      const tenantId = randomUUID();
      const at = (day: number) => `2024-05-${String(day).padStart(2, '0')}T10:00:00.000Z`;
      const apps = [1, 3, 2, 3, 5].map((day) => anApplication({ tenant_id: tenantId, created_at: at(day) }));
      await commit([...apps.map((a) => upsert('applications', a)), upsert('applications', anApplication())]);
      const expected = [...apps]
        .sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.id < b.id ? -1 : 1))
        .map((a) => a.id);

      const pages = [];
      for (const page of [1, 2, 3]) pages.push(await models.applications.list(tenantId, { page, size: 2 }));
      expect(pages.map((p) => p.total)).toEqual([5, 5, 5]);
      expect(pages.flatMap((p) => p.items.map((a) => a.id))).toEqual(expected);
      expect(pages[2].items).toHaveLength(1);
      expect(pages[0].items[0]).toEqual(apps[4]);
      expect(await models.applications.list(tenantId, { page: 4, size: 2 })).toEqual({ items: [], total: 5 });
      expect(await models.applications.list(randomUUID(), { page: 1, size: 20 })).toEqual({ items: [], total: 0 });
    });

    describe('rebuild', () => {
      let rebuilt: OpenedReadModels;
      let live: ReadModelsUnderTest;

      // Each case swaps or discards a whole read model, so each gets its own.
      beforeEach(async () => {
        rebuilt = await open();
        live = rebuilt.readModels;
      });
      afterEach(() => rebuilt.dispose());

      it('writes into an empty store that no query sees until swapIn, then answers from it', async () => {
        const old = aTenant();
        const oldPosition = nextPosition();
        await live.projectionStore.commit([upsert('tenants', old)], oldPosition);

        const target = await live.rebuildable.createRebuildTarget();
        expect(await target.store.checkpoint()).toBeNull();
        expect(await target.store.load('tenants', [old.id])).toEqual(new Map());

        const fresh = aTenant({ name: 'Rebuilt' });
        const app = anApplication({ tenant_id: fresh.id });
        const rebuiltPosition = nextPosition();
        await target.store.commit([upsert('tenants', fresh), upsert('applications', app, 2n)], rebuiltPosition);
        expect(await target.store.checkpoint()).toEqual(rebuiltPosition);
        expect((await target.store.load('applications', [app.id])).get(app.id)).toEqual({ revision: 2n, doc: app });
        expect(await live.tenants.get(fresh.id)).toBeNull();
        expect(await live.applications.findByKeyHash(app.key_hash)).toBeNull();
        expect(await live.projectionStore.checkpoint()).toEqual(oldPosition);

        await target.swapIn();
        await rebuilt.afterSwap?.();

        expect(await live.tenants.get(fresh.id)).toEqual(fresh);
        expect(await live.tenants.get(old.id)).toBeNull();
        expect(await live.tenants.count()).toBe(1);
        expect(await live.applications.get(fresh.id, app.id)).toEqual(app);
        expect(await live.applications.list(fresh.id, { page: 1, size: 10 })).toEqual({ items: [app], total: 1 });
        expect(await live.projectionStore.checkpoint()).toEqual(rebuiltPosition);
        expect((await live.projectionStore.load('applications', [app.id])).get(app.id)).toEqual({ revision: 2n, doc: app });

        // The projector carries on from the rebuilt checkpoint, writing to the swapped-in model.
        const after = aTenant({ name: 'After' });
        await live.projectionStore.commit([upsert('tenants', after)], nextPosition());
        expect(await live.tenants.get(after.id)).toEqual(after);
      });

      it('leaves the live model untouched when the rebuild is discarded', async () => {
        const kept = aTenant();
        const position = nextPosition();
        await live.projectionStore.commit([upsert('tenants', kept)], position);

        const target = await live.rebuildable.createRebuildTarget();
        const discarded = aTenant();
        await target.store.commit([upsert('tenants', discarded)], nextPosition());
        await target.discard();

        expect(await live.tenants.get(kept.id)).toEqual(kept);
        expect(await live.tenants.get(discarded.id)).toBeNull();
        expect(await live.projectionStore.checkpoint()).toEqual(position);
        expect(live.rebuildable.describe()).toEqual(expect.any(String));
      });
    });
  });
}
