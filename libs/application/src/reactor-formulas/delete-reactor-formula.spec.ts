// DeleteReactorFormulaHandler on the embedded stores: ReactorFormulaDeleted and an answer that waits for the key
// shredder, and the refusals: a formula that still has reactors, and one that does not exist.
import { randomUUID } from 'node:crypto';
import type { LogPosition } from '../ports/event-store';
import { openReactorVault, type ReactorVault } from '../reactors/reactor-vault.builders';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { DeleteReactorFormulaCommand, DeleteReactorFormulaHandler } from './delete-reactor-formula';
import { FormulaReactors } from './formula-reactors';

describe('DeleteReactorFormulaHandler', () => {
  let vault: ReactorVault;
  const waitedFor: LogPosition[] = [];
  let handler: DeleteReactorFormulaHandler;

  beforeAll(async () => {
    vault = await openReactorVault('delete-formula', { projected: true });
    const shredder = { waitFor: async (position: LogPosition) => (waitedFor.push(position), true) };
    handler = new DeleteReactorFormulaHandler(vault.runner, new FormulaReactors(vault.events, vault.vault.projector, vault.reactors, 2000), {
      waiter: shredder,
      timeoutMs: 1000,
    });
  });
  beforeEach(() => {
    waitedFor.length = 0;
  });
  afterAll(() => vault.close());

  const remove = (id: string) => handler.execute(new DeleteReactorFormulaCommand(vault.caller(), id));

  it('records ReactorFormulaDeleted and answers once the key shredder has passed it', async () => {
    const formulaId = await vault.givenFormula();
    const { recorded } = await whenRun(vault.events, () => remove(formulaId));
    expect(typesOf(recorded)).toEqual(['ReactorFormulaDeleted']);
    expect(waitedFor).toEqual([recorded[0].position]);
  });

  it('refuses a formula that has reactors: 409 naming them, nothing recorded', async () => {
    const formulaId = await vault.givenFormula();
    const reactor = await vault.givenReactor(formulaId);
    const { error, recorded } = await whenRefused(vault.events, () => remove(formulaId));
    expect(error).toMatchObject({ kind: 'conflict', errors: { reactors: [`Charge (${reactor.id})`] } });
    expect(recorded).toEqual([]);
    expect(waitedFor).toEqual([]);
  });

  it('refuses a formula that does not exist: 404', async () => {
    const { error, recorded } = await whenRefused(vault.events, () => remove(randomUUID()));
    expect([error.kind, error.message]).toEqual(['not_found', 'Reactor formula was not found.']);
    expect(recorded).toEqual([]);
  });
});
