// The reactor-formula read model every adapter must provide: visibility, the name filter, ordering and totals.
import { randomUUID } from 'node:crypto';
import { formulaNameMatcher, FormulaReadModel, ProjectionStore } from '@vault/application';
import type { ReactorFormula } from '@vault/domain';

export interface FormulaReadModelUnderTest {
  projectionStore: ProjectionStore;
  formulas: FormulaReadModel;
}

export function aFormulaDocument(overrides: Partial<ReactorFormula> = {}): ReactorFormula {
  return {
    id: randomUUID(),
    tenant_id: null,
    name: 'Formula',
    description: null,
    type: 'official',
    status: 'verified',
    icon: null,
    code: 'module.exports = async (req) => ({ raw: req.args })',
    configuration: [{ name: 'region', description: null, type: 'string' }],
    request_parameters: [{ name: 'card.number', description: 'the card', type: 'string', optional: false }],
    created_by: 'cli',
    created_at: '2024-05-01T10:00:00.000Z',
    modified_by: null,
    modified_at: null,
    ...overrides,
  };
}

export function describeFormulaReadModelContract(name: string, open: () => Promise<{ readModels: FormulaReadModelUnderTest; dispose(): Promise<void> }>): void {
  describe(`${name} formula read model contract`, () => {
    let rm: FormulaReadModelUnderTest;
    let dispose: () => Promise<void>;
    let position = 1n;
    // Official formulas are shared by every tenant of a store, so each test names its own with a unique marker.
    const tenantA = randomUUID();
    const tenantB = randomUUID();

    beforeAll(async () => {
      ({ readModels: rm, dispose } = await open());
      const checkpoint = await rm.projectionStore.checkpoint();
      position = (checkpoint?.commit ?? 0n) + 1n;
    });
    afterAll(() => dispose());

    const put = async (...docs: ReactorFormula[]) => {
      position += 1n;
      await rm.projectionStore.commit(
        docs.map((doc) => ({ collection: 'formulas', id: doc.id, revision: 0n, doc: doc as unknown as Record<string, unknown> })),
        { commit: position, prepare: position },
      );
    };
    const remove = async (id: string) => {
      position += 1n;
      await rm.projectionStore.commit([{ collection: 'formulas', id, revision: 1n, doc: null }], { commit: position, prepare: position });
    };
    const names = async (tenant: string, filter: string | null, page = 1, size = 100) =>
      (await rm.formulas.list(tenant, { name: filter, page, size })).items.map((f) => f.name);

    it('shows official formulas to every tenant and private ones only to their owner', async () => {
      const marker = randomUUID().slice(0, 8);
      const official = aFormulaDocument({ name: `Official ${marker}` });
      const privateA = aFormulaDocument({ name: `Private ${marker}`, type: 'private', tenant_id: tenantA });
      await put(official, privateA);
      expect(await names(tenantA, marker)).toEqual([`Official ${marker}`, `Private ${marker}`]);
      expect(await names(tenantB, marker)).toEqual([`Official ${marker}`]);
      expect(await rm.formulas.get(tenantB, official.id)).toEqual(official);
      expect(await rm.formulas.get(tenantA, privateA.id)).toEqual(privateA);
      expect(await rm.formulas.get(tenantB, privateA.id)).toBeNull();
      expect(await rm.formulas.get(tenantA, randomUUID())).toBeNull();
    });

    it('orders by name case-insensitively, then id, with exact totals and pages', async () => {
      const marker = randomUUID().slice(0, 8);
      const tenant = randomUUID();
      const [id1, id2] = [randomUUID(), randomUUID()].sort();
      await put(
        aFormulaDocument({ name: `b ${marker}`, type: 'private', tenant_id: tenant }),
        aFormulaDocument({ name: `A ${marker}`, type: 'private', tenant_id: tenant }),
        aFormulaDocument({ id: id2, name: `c ${marker}`, type: 'private', tenant_id: tenant }),
        aFormulaDocument({ id: id1, name: `C ${marker}`, type: 'private', tenant_id: tenant }),
      );
      const all = await rm.formulas.list(tenant, { name: marker, page: 1, size: 100 });
      expect(all.items.map((f) => f.name)).toEqual([`A ${marker}`, `b ${marker}`, `C ${marker}`, `c ${marker}`]);
      expect(all.items.slice(2).map((f) => f.id)).toEqual([id1, id2]);
      expect(all.total).toBe(4);
      const second = await rm.formulas.list(tenant, { name: marker, page: 2, size: 3 });
      expect(second.total).toBe(4);
      expect(second.items).toHaveLength(1);
      const past = await rm.formulas.list(tenant, { name: marker, page: 9, size: 3 });
      expect(past).toEqual({ total: 4, items: [] });
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
      ['mask email', ['Mask Email']],
      ['nothing-like-it', []],
    ])('filters names with %j', async (filter, expected) => {
      const tenant = randomUUID();
      const all = ['Tokenize Payload', 'PAYMENT router', 'prepay', 'Mask Email', '100% match', 'a_b'];
      await put(...all.map((n) => aFormulaDocument({ name: n, type: 'private', tenant_id: tenant })));
      // Official formulas of other tests share the store, so compare against the tenant's own private formulas.
      const got = (await rm.formulas.list(tenant, { name: filter, page: 1, size: 100 })).items
        .filter((f) => f.tenant_id === tenant)
        .map((f) => f.name);
      expect(got).toEqual([...expected].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
      expect(got).toEqual(all.filter(formulaNameMatcher(filter)).sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
    });

    it('forgets a deleted formula', async () => {
      const doc = aFormulaDocument({ type: 'private', tenant_id: tenantA, name: `Doomed ${randomUUID()}` });
      await put(doc);
      await remove(doc.id);
      expect(await rm.formulas.get(tenantA, doc.id)).toBeNull();
      expect(await names(tenantA, doc.name)).toEqual([]);
    });
  });
}
