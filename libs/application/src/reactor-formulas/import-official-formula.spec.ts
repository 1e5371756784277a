// ImportOfficialFormulaHandler on the embedded stores: an official formula file creates the formula, importing it again
// changes nothing, a changed file updates it; a file that is no official formula is refused with nothing recorded.
import { randomUUID } from 'node:crypto';
import { IsolatedVmCodeChecker, systemClock } from '@vault/adapters';
import { formulaBody, noWait, openReactorVault, type ReactorVault } from '../reactors/reactor-vault.builders';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { FormulaReactors } from './formula-reactors';
import { ImportOfficialFormulaCommand, ImportOfficialFormulaHandler } from './import-official-formula';

describe('ImportOfficialFormulaHandler', () => {
  let vault: ReactorVault;
  let handler: ImportOfficialFormulaHandler;

  beforeAll(async () => {
    vault = await openReactorVault('import-formula');
    handler = new ImportOfficialFormulaHandler(vault.runner, new IsolatedVmCodeChecker(), systemClock, new FormulaReactors(vault.events, noWait, vault.reactors, 2000));
  });
  afterAll(() => vault.close());

  const file = (id: string, overrides: object = {}) => ({ ...formulaBody(), id, type: 'official', status: 'verified', ...overrides });
  const importFile = (body: unknown) => handler.execute(new ImportOfficialFormulaCommand(body, { type: 'operator', id: 'cli' }, 'import-1'));

  it('creates, then leaves unchanged, then updates: one event each time it changes something', async () => {
    const id = randomUUID();
    const created = await whenRun(vault.events, () => importFile(file(id)));
    expect(created.answer).toEqual({ id, name: 'Gateway', result: 'created' });
    expect(typesOf(created.recorded)).toEqual(['ReactorFormulaCreated']);
    expect(created.recorded[0].data).toMatchObject({ id, tenant_id: null, type: 'official' });

    const again = await whenRun(vault.events, () => importFile(file(id)));
    expect(again.answer.result).toBe('unchanged');
    expect(again.recorded).toEqual([]);

    const changed = await whenRun(vault.events, () => importFile(file(id, { name: 'Gateway 2' })));
    expect(changed.answer).toEqual({ id, name: 'Gateway 2', result: 'updated' });
    expect(typesOf(changed.recorded)).toEqual(['ReactorFormulaUpdated']);
  });

  it('refuses a file that is not an official formula: 400, nothing recorded', async () => {
    const { error, recorded } = await whenRefused(vault.events, () => importFile(file(randomUUID(), { type: 'private' })));
    expect(error.kind).toBe('validation');
    expect(error.errors).toMatchObject({ type: ['type must be official in an official formula file.'] });
    expect(recorded).toEqual([]);
  });
});
