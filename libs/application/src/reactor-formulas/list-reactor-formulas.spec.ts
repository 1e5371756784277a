// ListReactorFormulasHandler on the embedded stores: a page of the tenant's formulas, and none of another tenant's.
import { aCaller } from '../shared/use-case.builders';
import { openReactorVault, type ReactorVault } from '../reactors/reactor-vault.builders';
import { ListReactorFormulasHandler, ListReactorFormulasQuery } from './list-reactor-formulas';

describe('ListReactorFormulasHandler', () => {
  let vault: ReactorVault;
  let handler: ListReactorFormulasHandler;

  beforeAll(async () => {
    vault = await openReactorVault('list-formulas', { projected: true });
    handler = new ListReactorFormulasHandler(vault.formulas);
  });
  afterAll(() => vault.close());

  it("answers the tenant's formulas, each without its tenant, with the exact total", async () => {
    const ids = [await vault.givenFormula(), await vault.givenFormula()];
    const page = await handler.execute(new ListReactorFormulasQuery(vault.caller(), { name: null, page: 1, size: 10 }));
    expect(page.total).toBe(2);
    expect(page.items.map(({ id }) => id).sort()).toEqual([...ids].sort());
    for (const item of page.items) expect(item).not.toHaveProperty('tenant_id');
  });

  it("shows another tenant none of them", async () => {
    await vault.givenFormula();
    expect(await handler.execute(new ListReactorFormulasQuery(aCaller(), { name: null, page: 1, size: 10 }))).toEqual({ total: 0, items: [] });
  });
});
