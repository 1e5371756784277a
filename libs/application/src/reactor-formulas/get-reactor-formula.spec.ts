// GetReactorFormulaHandler on the embedded stores: the tenant's own formula, and a 404 for another tenant's.
import { aCaller, whenRefused } from '../shared/use-case.builders';
import { openReactorVault, type ReactorVault } from '../reactors/reactor-vault.builders';
import { GetReactorFormulaHandler, GetReactorFormulaQuery } from './get-reactor-formula';

describe('GetReactorFormulaHandler', () => {
  let vault: ReactorVault;
  let handler: GetReactorFormulaHandler;

  beforeAll(async () => {
    vault = await openReactorVault('get-formula', { projected: true });
    handler = new GetReactorFormulaHandler(vault.formulas);
  });
  afterAll(() => vault.close());

  it("answers the tenant's formula without its tenant", async () => {
    const formulaId = await vault.givenFormula();
    const formula = await handler.execute(new GetReactorFormulaQuery(vault.caller(), formulaId));
    expect(formula).toMatchObject({ id: formulaId, name: 'Gateway', type: 'private' });
    expect(formula).not.toHaveProperty('tenant_id');
  });

  it("refuses another tenant's formula as a missing one: 404", async () => {
    const formulaId = await vault.givenFormula();
    const { error } = await whenRefused(vault.events, () => handler.execute(new GetReactorFormulaQuery(aCaller(), formulaId)));
    expect([error.kind, error.message]).toEqual(['not_found', 'Reactor formula was not found.']);
  });
});
