// UpdateReactorFormulaHandler on the embedded stores: the change recorded, and the refusals: another tenant's formula,
// and a change that would break a reactor of the formula, asked of the reactor read model only once it has caught up
// with the log (or 409 to retry), with nothing recorded.
import { IsolatedVmCodeChecker } from '@vault/adapters';
import { DomainError, formulaStream } from '@vault/domain';
import type { ProjectionWaiter } from '../projections/projector';
import { CONFIGURATION, formulaBody, noWait, openReactorVault, type ReactorVault } from '../reactors/reactor-vault.builders';
import { aCaller, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { FormulaReactors } from './formula-reactors';
import { UpdateReactorFormulaCommand, UpdateReactorFormulaHandler } from './update-reactor-formula';

describe('UpdateReactorFormulaHandler', () => {
  let vault: ReactorVault;
  const checker = new IsolatedVmCodeChecker();

  beforeEach(async () => {
    vault = await openReactorVault('update-formula');
  });
  afterEach(() => vault.close());

  const update = (formulaId: string, body: object, waiter: ProjectionWaiter = noWait, timeoutMs = 2000, caller = vault.caller()) =>
    new UpdateReactorFormulaHandler(vault.runner, checker, new FormulaReactors(vault.events, waiter, vault.reactors, timeoutMs)).execute(
      new UpdateReactorFormulaCommand(caller, formulaId, body),
    );
  const formulaHistory = async (formulaId: string) => typesOf(await vault.events.readStream(formulaStream(formulaId)));

  it('records ReactorFormulaUpdated and answers the formula as it now is', async () => {
    const formulaId = await vault.givenFormula();
    const { answer, recorded } = await whenRun(vault.events, () => update(formulaId, { ...formulaBody(), name: 'Gateway v2' }));
    expect(answer).toMatchObject({ id: formulaId, name: 'Gateway v2', modified_by: expect.any(String) });
    expect(typesOf(recorded)).toEqual(['ReactorFormulaUpdated']);
  });

  it("refuses another tenant's formula as a missing one: 404", async () => {
    const formulaId = await vault.givenFormula();
    const stranger = aCaller({ permissions: ['reactor:update'] });
    const { error, recorded } = await whenRefused(vault.events, () => update(formulaId, formulaBody(), noWait, 2000, stranger));
    expect([error.kind, error.message]).toEqual(['not_found', 'Reactor formula was not found.']);
    expect(recorded).toEqual([]);
  });

  it('checks a change against a reactor recorded but not yet projected: it waits for the read model, then 409s', async () => {
    const formulaId = await vault.givenFormula();
    const reactor = await vault.givenReactor(formulaId);
    // Nothing has been projected yet: the projector starts while the formula update waits for it.
    setTimeout(() => void vault.vault.projector.start(), 100);
    const refused = await update(formulaId, formulaBody([CONFIGURATION[0]]), vault.vault.projector).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'conflict', errors: { reactors: [`Charge (${reactor.id})`] } });
    expect(await formulaHistory(formulaId)).toEqual(['ReactorFormulaCreated']);
  });

  it('answers 409 (retry) and records nothing when the read models do not catch up in time', async () => {
    const formulaId = await vault.givenFormula();
    await vault.givenReactor(formulaId);
    await expect(update(formulaId, formulaBody([CONFIGURATION[0]]), vault.vault.projector, 50)).rejects.toMatchObject({
      kind: 'conflict',
      message: expect.stringContaining('retry'),
    });
    expect(await formulaHistory(formulaId)).toEqual(['ReactorFormulaCreated']);
  });

  it('refuses code that does not compile: 422, nothing recorded', async () => {
    const formulaId = await vault.givenFormula();
    const { error, recorded } = await whenRefused(vault.events, () => update(formulaId, { ...formulaBody(), code: 'not js (' }));
    expect(error.kind).toBe('unprocessable');
    expect(recorded).toEqual([]);
  });
});
