// The reactor read model every adapter must provide: tenant scoping (ids are unique within a tenant only), the name
// filter, ordering and totals, and "the reactors of a formula" across tenants for the formula-change check.
import { randomUUID } from 'node:crypto';
import { formulaNameMatcher, ProjectionStore, ReactorDocument, ReactorReadModel } from '@vault/application';
import { reactorKey } from '@vault/domain';

export interface ReactorReadModelUnderTest {
  projectionStore: ProjectionStore;
  reactors: ReactorReadModel;
}

export function aReactorDocument(overrides: Partial<ReactorDocument> = {}): ReactorDocument {
  const id = overrides.id ?? randomUUID();
  return {
    id,
    tenant_id: randomUUID(),
    formula_id: randomUUID(),
    name: 'Reactor',
    configuration: { v: 1, alg: 'AES-256-GCM', key_ref: `reactor:${id}`, iv: 'aXY=', ciphertext: 'Y3Q=', tag: 'dGFn' },
    configuration_shape: [{ name: 'api_key', type: 'string' }],
    application_id: null,
    created_by: 'app',
    created_at: '2024-05-01T10:00:00.000Z',
    modified_by: null,
    modified_at: null,
    ...overrides,
  };
}

const byNameThenId = (a: ReactorDocument, b: ReactorDocument) => {
  const [x, y] = [a.name.toLowerCase(), b.name.toLowerCase()];
  return x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
};

export function describeReactorReadModelContract(
  name: string,
  open: () => Promise<{ readModels: ReactorReadModelUnderTest; dispose(): Promise<void> }>,
): void {
  describe(`${name} reactor read model contract`, () => {
    let rm: ReactorReadModelUnderTest;
    let dispose: () => Promise<void>;
    let position = 1n;

    beforeAll(async () => {
      ({ readModels: rm, dispose } = await open());
      const checkpoint = await rm.projectionStore.checkpoint();
      position = (checkpoint?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    const put = async (...docs: ReactorDocument[]) => {
      position += 1n;
      await rm.projectionStore.commit(
        docs.map((doc) => ({
          collection: 'reactors',
          id: reactorKey(doc.tenant_id, doc.id),
          revision: 0n,
          doc: doc as unknown as Record<string, unknown>,
        })),
        { commit: position, prepare: position },
      );
    };
    const remove = async (doc: ReactorDocument) => {
      position += 1n;
      await rm.projectionStore.commit([{ collection: 'reactors', id: reactorKey(doc.tenant_id, doc.id), revision: 1n, doc: null }], {
        commit: position,
        prepare: position,
      });
    };
    const names = async (tenant: string, filter: string | null, page = 1, size = 100) =>
      (await rm.reactors.list(tenant, { name: filter, page, size })).items.map((r) => r.name);

    it("returns a tenant's reactor whole, and another tenant's as absent", async () => {
      const doc = aReactorDocument({ name: 'Mine', application_id: randomUUID(), configuration_shape: [{ name: 'k', type: 'number' }] });
      await put(doc);
      expect(await rm.reactors.get(doc.tenant_id, doc.id)).toEqual(doc);
      expect(await rm.reactors.get(randomUUID(), doc.id)).toBeNull();
      expect(await rm.reactors.get(doc.tenant_id, randomUUID())).toBeNull();
      expect(await names(randomUUID(), null)).toEqual([]);
    });

    it('keeps two tenants\' reactors that share an id apart', async () => {
      const id = randomUUID();
      const [a, b] = [aReactorDocument({ id, name: 'In A' }), aReactorDocument({ id, name: 'In B' })];
      await put(a, b);
      expect(await rm.reactors.get(a.tenant_id, id)).toEqual(a);
      expect(await rm.reactors.get(b.tenant_id, id)).toEqual(b);
      await remove(a);
      expect(await rm.reactors.get(a.tenant_id, id)).toBeNull();
      expect(await rm.reactors.get(b.tenant_id, id)).toEqual(b);
    });

    it('orders by name case-insensitively, then id, with exact totals and pages', async () => {
      const tenant = randomUUID();
      const [id1, id2] = [randomUUID(), randomUUID()].sort();
      await put(
        aReactorDocument({ tenant_id: tenant, name: 'b' }),
        aReactorDocument({ tenant_id: tenant, name: 'A' }),
        aReactorDocument({ tenant_id: tenant, id: id2, name: 'c' }),
        aReactorDocument({ tenant_id: tenant, id: id1, name: 'C' }),
        aReactorDocument({ name: 'another tenant' }),
      );
      const all = await rm.reactors.list(tenant, { name: null, page: 1, size: 100 });
      expect(all.items.map((r) => r.name)).toEqual(['A', 'b', 'C', 'c']);
      expect(all.items.slice(2).map((r) => r.id)).toEqual([id1, id2]);
      expect(all.total).toBe(4);
      const second = await rm.reactors.list(tenant, { name: null, page: 2, size: 3 });
      expect(second.total).toBe(4);
      expect(second.items.map((r) => r.name)).toEqual(['c']);
      expect(await rm.reactors.list(tenant, { name: null, page: 9, size: 3 })).toEqual({ total: 4, items: [] });
      expect((await rm.reactors.list(tenant, { name: '*', page: 1, size: 2 })).items.map((r) => r.name)).toEqual(['A', 'b']);
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
      await put(...all.map((n) => aReactorDocument({ tenant_id: tenant, name: n })));
      const sorted = (list: string[]) => [...list].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1));
      const page = await rm.reactors.list(tenant, { name: filter, page: 1, size: 100 });
      expect(page.items.map((r) => r.name)).toEqual(sorted(expected));
      expect(page.total).toBe(expected.length);
      expect(page.items.map((r) => r.name)).toEqual(sorted(all.filter(formulaNameMatcher(filter))));
    });

    it("answers a formula's reactors across tenants, by name then id, without their sealed configuration", async () => {
      const formula = randomUUID();
      const docs = [
        aReactorDocument({ formula_id: formula, name: 'zeta', configuration_shape: [{ name: 'a', type: 'boolean' }] }),
        aReactorDocument({ formula_id: formula, name: 'Alpha' }),
        aReactorDocument({ formula_id: formula, name: 'beta' }),
        aReactorDocument({ name: 'another formula' }),
      ];
      await put(...docs);
      const found = await rm.reactors.ofFormula(formula);
      expect(found).toEqual(
        docs
          .slice(0, 3)
          .sort(byNameThenId)
          .map(({ id, tenant_id, name, configuration_shape }) => ({ id, tenant_id, name, configuration_shape })),
      );
      await remove(docs[1]);
      expect((await rm.reactors.ofFormula(formula)).map((r) => r.name)).toEqual(['beta', 'zeta']);
      expect(await rm.reactors.ofFormula(randomUUID())).toEqual([]);
    });

    it('forgets a deleted reactor', async () => {
      const doc = aReactorDocument({ name: `Doomed ${randomUUID()}` });
      await put(doc);
      await remove(doc);
      expect(await rm.reactors.get(doc.tenant_id, doc.id)).toBeNull();
      expect(await names(doc.tenant_id, null)).toEqual([]);
      expect(await rm.reactors.ofFormula(doc.formula_id)).toEqual([]);
    });
  });
}
