// ListReactorsHandler on the embedded stores: a page of the tenant's reactors with their configurations opened, a
// reactor whose key a delete has just shredded left out, and none of another tenant's.
import { aCaller } from '../shared/use-case.builders';
import { ListReactorsHandler, ListReactorsQuery } from './list-reactors';
import { openReactorVault, SECRET, type ReactorVault } from './reactor-vault.builders';

describe('ListReactorsHandler', () => {
  let vault: ReactorVault;
  let handler: ListReactorsHandler;

  beforeAll(async () => {
    vault = await openReactorVault('list-reactors', { projected: true });
    handler = new ListReactorsHandler(vault.reactors, vault.formulas, vault.crypto);
  });
  afterAll(() => vault.close());

  const list = (caller = vault.caller()) => handler.execute(new ListReactorsQuery(caller, { name: null, page: 1, size: 10 }));

  it('answers each reactor with its formula and its configuration opened; one whose key is shredded is left out', async () => {
    const formulaId = await vault.givenFormula();
    const kept = await vault.givenReactor(formulaId);
    const shredded = await vault.givenReactor(formulaId);
    await vault.keys.destroy(vault.tenantId, `reactor:${shredded.id}`);
    const page = await list();
    expect(page.items).toEqual([expect.objectContaining({ id: kept.id, configuration: { api_key: SECRET, sandbox: true }, formula: expect.objectContaining({ id: formulaId }) })]);
  });

  it('shows another tenant none of them', async () => {
    await vault.givenReactor(await vault.givenFormula());
    expect(await list(aCaller({ permissions: ['reactor:read'] }))).toEqual({ total: 0, items: [] });
  });
});
