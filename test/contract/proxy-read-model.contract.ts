// The proxy read model every adapter must provide, fed through the real proxy projection: tenant scoping (ids are
// unique within a tenant only), the name filter, ordering and totals, the invocation's lookup by key hash across
// tenants, the sealed secrets kept exactly as projected, and a deleted tenant's proxies gone with it.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  applyBatch,
  formulaNameMatcher,
  ProjectionSet,
  proxiesProjection,
  tenantsProjection,
  type ProjectionStore,
  type ProxyDocument,
  type ProxyReadModel,
  type RecordedEvent,
} from '@vault/application';
import { proxyStream, tenantStream, type ProxyCreatedData, type ProxyEvent, type ProxySecrets, type TenantEvent } from '@vault/domain';

/** The store holds the `tenants` collection too: a deleted tenant's purge goes by its tombstone there. */
export interface ProxyReadModelUnderTest {
  projectionStore: ProjectionStore;
  proxies: ProxyReadModel;
}

type Event = Pick<RecordedEvent, 'type' | 'data'> & { streamId: string; tenantId: string };

const CREATED_AT = '2024-05-01T10:00:00.000Z';
const MODIFIED_AT = '2024-05-02T10:00:00.000Z';

/** A key's hash as the application computes it: 64 lower-case hex digits. */
const aKeyHash = (): string => randomBytes(32).toString('hex');

/** Secrets only the sealed envelope holds; the markers must never be readable in a stored document. */
const secretsOf = (id: string): ProxySecrets => ({
  key: `pxk_${id}_plaintext-key-marker`,
  destination_url: `https://plaintext-destination-marker.example/${id}`,
  configuration: { upstream_key: `sk_plaintext-configuration-marker_${id}` },
  request_transforms: [{ type: 'code', code: 'plaintext-code-marker' }],
  response_transforms: [],
});

/** What ProxyCreated carries; the secrets sealed (here merely encoded: the read model never opens them). */
export function aProxy(overrides: Partial<ProxyCreatedData> = {}): ProxyCreatedData {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    tenant_id: randomUUID(),
    name: 'Proxy',
    require_auth: true,
    application_id: null,
    key_hash: aKeyHash(),
    sealed: {
      v: 1,
      alg: 'AES-256-GCM',
      key_ref: `proxy:${id}`,
      iv: 'aXY=',
      ciphertext: Buffer.from(JSON.stringify(secretsOf(id))).toString('base64'),
      tag: 'dGFn',
    },
    created_by: 'app',
    created_at: CREATED_AT,
    ...overrides,
  };
}

/** The document a created proxy is: the record, never updated yet. */
const asCreated = (proxy: ProxyCreatedData): ProxyDocument => ({ ...proxy, modified_by: null, modified_at: null });

const created = (proxy: ProxyCreatedData): Event => ({
  type: 'ProxyCreated',
  data: proxy,
  streamId: proxyStream(proxy.tenant_id, proxy.id),
  tenantId: proxy.tenant_id,
});

/** ProxyUpdated carries the whole proxy after the change. */
const updated = (proxy: ProxyCreatedData, changes: Partial<ProxyCreatedData>): Event => {
  const { created_by: _by, created_at: _at, ...fields } = { ...proxy, ...changes };
  return {
    type: 'ProxyUpdated',
    data: { ...fields, modified_by: 'editor', modified_at: MODIFIED_AT } satisfies Extract<ProxyEvent, { type: 'ProxyUpdated' }>['data'],
    streamId: proxyStream(proxy.tenant_id, proxy.id),
    tenantId: proxy.tenant_id,
  };
};

const deleted = (proxy: ProxyCreatedData): Event => ({
  type: 'ProxyDeleted',
  data: { id: proxy.id, tenant_id: proxy.tenant_id, deleted_by: 'app', deleted_at: MODIFIED_AT },
  streamId: proxyStream(proxy.tenant_id, proxy.id),
  tenantId: proxy.tenant_id,
});

const tenantEvent = (type: 'TenantCreated' | 'TenantDeleted', id: string): Event => ({
  type,
  data: (type === 'TenantCreated'
    ? { id, name: 'Tenant', created_by: 'cli', created_at: CREATED_AT }
    : { id, deleted_by: 'cli', deleted_at: MODIFIED_AT }) satisfies TenantEvent['data'],
  streamId: tenantStream(id),
  tenantId: id,
});

export function describeProxyReadModelContract(
  name: string,
  open: () => Promise<{ readModels: ProxyReadModelUnderTest; dispose(): Promise<void> }>,
): void {
  describe(`${name} proxy read model contract`, () => {
    let rm: ProxyReadModelUnderTest;
    let dispose: () => Promise<void>;
    let position = 1n;
    const projections = new ProjectionSet([tenantsProjection, proxiesProjection]);

    beforeAll(async () => {
      ({ readModels: rm, dispose } = await open());
      const checkpoint = await rm.projectionStore.checkpoint();
      position = (checkpoint?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    const revisions = new Map<string, bigint>();
    /** Appends the events to the log (in this order, as one batch) and lets the projections apply them as the projector does. */
    const record = async (...events: Event[]): Promise<void> => {
      const recorded = events.map(({ streamId, tenantId, ...event }): RecordedEvent => {
        position += 1n;
        const revision = revisions.has(streamId) ? revisions.get(streamId)! + 1n : 0n;
        revisions.set(streamId, revision);
        const metadata = { tenant_id: tenantId, actor: { type: 'application' as const, id: 'app' }, timestamp: CREATED_AT, correlation_id: 'c' };
        return { ...event, metadata, streamId, revision, position: { commit: position, prepare: position } };
      });
      const changes = await applyBatch(recorded, projections, rm.projectionStore);
      await rm.projectionStore.commit(changes, recorded[recorded.length - 1].position);
    };
    const names = async (tenant: string, filter: string | null, page = 1, size = 100) =>
      (await rm.proxies.list(tenant, { name: filter, page, size })).items.map((p) => p.name);

    it("returns a tenant's proxy as projected, and another tenant's as absent", async () => {
      const proxy = aProxy({ name: 'Mine', require_auth: false, application_id: randomUUID() });
      await record(created(proxy));
      expect(await rm.proxies.get(proxy.tenant_id, proxy.id)).toEqual(asCreated(proxy));
      expect(await rm.proxies.get(randomUUID(), proxy.id)).toBeNull();
      expect(await rm.proxies.get(proxy.tenant_id, randomUUID())).toBeNull();
      expect(await rm.proxies.get(`${proxy.tenant_id}" OR tenant_id != "x`, proxy.id)).toBeNull();
      expect(await names(randomUUID(), null)).toEqual([]);
    });

    it('keeps the sealed secrets exactly as given and holds none of them in the clear', async () => {
      const proxy = aProxy();
      await record(created(proxy));
      const doc = (await rm.proxies.get(proxy.tenant_id, proxy.id))!;
      expect(doc.sealed).toEqual(proxy.sealed);
      expect(Object.keys(doc).sort()).toEqual(Object.keys(asCreated(proxy)).sort());
      const stored = JSON.stringify([doc, await rm.proxies.findByKeyHash(proxy.key_hash), await rm.proxies.list(proxy.tenant_id, { name: null, page: 1, size: 10 })]);
      expect(stored).not.toMatch(/plaintext-[a-z]+-marker/);
    });

    it("keeps two tenants' proxies that share an id apart", async () => {
      const id = randomUUID();
      const [a, b] = [aProxy({ id, name: 'In A' }), aProxy({ id, name: 'In B' })];
      await record(created(a), created(b));
      expect(await rm.proxies.get(a.tenant_id, id)).toEqual(asCreated(a));
      expect(await rm.proxies.get(b.tenant_id, id)).toEqual(asCreated(b));
      await record(deleted(a));
      expect(await rm.proxies.get(a.tenant_id, id)).toBeNull();
      expect(await rm.proxies.get(b.tenant_id, id)).toEqual(asCreated(b));
      expect(await rm.proxies.findByKeyHash(a.key_hash)).toBeNull();
      expect(await rm.proxies.findByKeyHash(b.key_hash)).toEqual(asCreated(b));
    });

    it('answers an update whole: its new fields, its creation kept, and the same key hash still finding it', async () => {
      const proxy = aProxy({ name: 'Before' });
      const resealed = { ...proxy.sealed, iv: 'bmV3', ciphertext: 'bmV3' };
      await record(created(proxy), updated(proxy, { name: 'After', require_auth: false, sealed: resealed }));
      const after: ProxyDocument = {
        ...asCreated(proxy),
        name: 'After',
        require_auth: false,
        sealed: resealed,
        modified_by: 'editor',
        modified_at: MODIFIED_AT,
      };
      expect(await rm.proxies.get(proxy.tenant_id, proxy.id)).toEqual(after);
      expect(await rm.proxies.findByKeyHash(proxy.key_hash)).toEqual(after);
      expect(await rm.proxies.list(proxy.tenant_id, { name: 'after', page: 1, size: 10 })).toEqual({ total: 1, items: [after] });
      expect(await rm.proxies.list(proxy.tenant_id, { name: 'before', page: 1, size: 10 })).toEqual({ total: 0, items: [] });
    });

    it('forgets a deleted proxy: by id, in lists and by its key hash', async () => {
      const proxy = aProxy({ name: `Doomed ${randomUUID()}` });
      await record(created(proxy));
      await record(deleted(proxy));
      expect(await rm.proxies.get(proxy.tenant_id, proxy.id)).toBeNull();
      expect(await rm.proxies.list(proxy.tenant_id, { name: null, page: 1, size: 10 })).toEqual({ total: 0, items: [] });
      expect(await rm.proxies.findByKeyHash(proxy.key_hash)).toBeNull();
    });

    it('orders by name case-insensitively, then id, with exact totals and pages', async () => {
      const tenant = randomUUID();
      const [id1, id2] = [randomUUID(), randomUUID()].sort();
      await record(
        created(aProxy({ tenant_id: tenant, name: 'b' })),
        created(aProxy({ tenant_id: tenant, name: 'A' })),
        created(aProxy({ tenant_id: tenant, id: id2, name: 'c' })),
        created(aProxy({ tenant_id: tenant, id: id1, name: 'C' })),
        created(aProxy({ name: 'another tenant' })),
      );
      const all = await rm.proxies.list(tenant, { name: null, page: 1, size: 100 });
      expect(all.items.map((p) => p.name)).toEqual(['A', 'b', 'C', 'c']);
      expect(all.items.slice(2).map((p) => p.id)).toEqual([id1, id2]);
      expect(all.total).toBe(4);
      const second = await rm.proxies.list(tenant, { name: null, page: 2, size: 3 });
      expect(second.total).toBe(4);
      expect(second.items.map((p) => p.name)).toEqual(['c']);
      expect(await rm.proxies.list(tenant, { name: null, page: 9, size: 3 })).toEqual({ total: 4, items: [] });
      expect((await rm.proxies.list(tenant, { name: '*', page: 1, size: 2 })).items.map((p) => p.name)).toEqual(['A', 'b']);
      const filtered = await rm.proxies.list(tenant, { name: 'c', page: 2, size: 1 });
      expect(filtered).toMatchObject({ total: 2, items: [{ id: id2 }] });
    });

    it.each([
      ['pay', ['Tokenize Payload', 'PAYMENT router', 'prepay']],
      ['PAY', ['Tokenize Payload', 'PAYMENT router', 'prepay']],
      ['pay*', ['PAYMENT router']],
      ['*pay', ['prepay']],
      ['tok*load', ['Tokenize Payload']],
      ['*', ['100% match', 'a_b', 'Mask Email', 'PAYMENT router', 'prepay', 'Tokenize Payload']],
      ['%', ['100% match']],
      ['_', ['a_b']],
      ['nothing-like-it', []],
    ])('filters names with %j', async (filter, expected) => {
      const tenant = randomUUID();
      const all = ['Tokenize Payload', 'PAYMENT router', 'prepay', 'Mask Email', '100% match', 'a_b'];
      await record(...all.map((n) => created(aProxy({ tenant_id: tenant, name: n }))));
      const sorted = (list: string[]) => [...list].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
      const page = await rm.proxies.list(tenant, { name: filter, page: 1, size: 100 });
      expect(page.items.map((p) => p.name)).toEqual(sorted(expected));
      expect(page.total).toBe(expected.length);
      expect(page.items.map((p) => p.name)).toEqual(sorted(all.filter(formulaNameMatcher(filter))));
    });

    it('finds a proxy by its key hash in any tenant, by the exact hash only', async () => {
      const [mine, theirs] = [aProxy(), aProxy()];
      await record(created(mine), created(theirs));
      expect(await rm.proxies.findByKeyHash(mine.key_hash)).toEqual(asCreated(mine));
      expect(await rm.proxies.findByKeyHash(theirs.key_hash)).toEqual(asCreated(theirs));
      expect(await rm.proxies.findByKeyHash(aKeyHash())).toBeNull();
      expect(await rm.proxies.findByKeyHash(mine.key_hash.toUpperCase())).toBeNull();
      expect(await rm.proxies.findByKeyHash(mine.key_hash.slice(0, 32))).toBeNull();
      expect(await rm.proxies.findByKeyHash('"\\ OR key_hash EXISTS')).toBeNull();
    });

    it("drops a deleted tenant's proxies, and its writes still in flight, and no other tenant's", async () => {
      const [gone, kept] = [randomUUID(), randomUUID()];
      const doomed = aProxy({ tenant_id: gone, name: 'Doomed' });
      const survivor = aProxy({ tenant_id: kept, name: 'Survivor' });
      await record(tenantEvent('TenantCreated', gone), tenantEvent('TenantCreated', kept), created(doomed), created(survivor));
      expect(await rm.proxies.findByKeyHash(doomed.key_hash)).toEqual(asCreated(doomed));
      await record(tenantEvent('TenantDeleted', gone));
      const late = aProxy({ tenant_id: gone, name: 'Late' });
      await record(updated(doomed, { name: 'Revived' }), created(late));
      expect(await rm.proxies.get(gone, doomed.id)).toBeNull();
      expect(await rm.proxies.findByKeyHash(doomed.key_hash)).toBeNull();
      expect(await rm.proxies.findByKeyHash(late.key_hash)).toBeNull();
      expect(await rm.proxies.list(gone, { name: null, page: 1, size: 10 })).toEqual({ total: 0, items: [] });
      expect(await rm.proxies.get(kept, survivor.id)).toEqual(asCreated(survivor));
      expect(await rm.proxies.findByKeyHash(survivor.key_hash)).toEqual(asCreated(survivor));
    });
  });
}
