// CreateReactorFormulaHandler on the embedded stores, with the real sandbox checker: a private formula recorded for the
// caller's tenant, and the refusals (the shape, then the code) with nothing recorded.
import { IsolatedVmCodeChecker, uuidGenerator } from '@vault/adapters';
import { openReactorVault, formulaBody, type ReactorVault } from '../reactors/reactor-vault.builders';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CreateReactorFormulaCommand, CreateReactorFormulaHandler } from './create-reactor-formula';

describe('CreateReactorFormulaHandler', () => {
  let vault: ReactorVault;
  let handler: CreateReactorFormulaHandler;

  beforeAll(async () => {
    vault = await openReactorVault('create-formula');
    handler = new CreateReactorFormulaHandler(vault.runner, new IsolatedVmCodeChecker(), uuidGenerator);
  });
  afterAll(() => vault.close());

  const create = (body: object) => handler.execute(new CreateReactorFormulaCommand(vault.caller(), body));

  it("records ReactorFormulaCreated for the caller's tenant, and answers the formula without its tenant", async () => {
    const { answer, recorded } = await whenRun(vault.events, () => create(formulaBody()));
    expect(answer).toMatchObject({ name: 'Gateway', type: 'private', code: formulaBody().code, configuration: expect.any(Array) });
    expect(answer).not.toHaveProperty('tenant_id');
    expect(typesOf(recorded)).toEqual(['ReactorFormulaCreated']);
    expect(recorded[0].data).toMatchObject({ id: answer.id, tenant_id: vault.tenantId, name: 'Gateway' });
  });

  describe('refuses, recording nothing', () => {
    it('a body of the wrong shape: 400, before the code is compiled', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => create({ ...formulaBody(), configuration: 'none' }));
      expect(error.kind).toBe('validation');
      expect(Object.keys(error.errors!)).toEqual(['configuration']);
      expect(recorded).toEqual([]);
    });

    it('code that does not compile: 422 naming code', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => create({ ...formulaBody(), code: 'module.exports = async () => {' }));
      expect(error).toMatchObject({ kind: 'unprocessable', message: 'The formula code does not compile or does not export a function.' });
      expect(Object.keys(error.errors!)).toEqual(['code']);
      expect(recorded).toEqual([]);
    });
  });
});
