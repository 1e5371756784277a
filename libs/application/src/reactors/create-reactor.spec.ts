// CreateReactorHandler on the embedded stores: the formula snapshot comes from its stream (a formula recorded a moment
// ago is usable before any projection), the configuration is recorded sealed under the reactor's own key and purpose,
// and each guard refuses with nothing recorded.
import { randomUUID } from 'node:crypto';
import { uuidGenerator } from '@vault/adapters';
import { DataKeyUnavailableError, type EncryptedData } from '@vault/domain';
import { typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CreateReactorCommand, CreateReactorHandler } from './create-reactor';
import { openReactorVault, SECRET, type ReactorVault } from './reactor-vault.builders';

describe('CreateReactorHandler', () => {
  let vault: ReactorVault;
  let handler: CreateReactorHandler;

  beforeAll(async () => {
    vault = await openReactorVault('create-reactor');
    handler = new CreateReactorHandler(vault.runner, vault.events, vault.crypto, uuidGenerator);
  });
  afterAll(() => vault.close());

  const create = (body: object, permissions?: string[]) => handler.execute(new CreateReactorCommand(vault.caller(permissions), body));
  const charge = (formulaId: string, configuration: object = { api_key: SECRET, sandbox: true }) => ({ name: 'Charge', formula: { id: formulaId }, configuration });

  it('creates on a formula read from its stream, before any read model has it', async () => {
    const formulaId = await vault.givenFormula();
    const reactor = await create(charge(formulaId));
    expect(reactor).toMatchObject({ name: 'Charge', configuration: { api_key: SECRET, sandbox: true }, formula: { id: formulaId, name: 'Gateway' } });
  });

  it('records ReactorCreated with the configuration sealed under reactor:<id> and its own purpose, its shape in the clear', async () => {
    const formulaId = await vault.givenFormula();
    const { answer: reactor, recorded } = await whenRun(vault.events, () => create(charge(formulaId)));
    expect(typesOf(recorded)).toEqual(['ReactorCreated']);
    expect(JSON.stringify({ data: recorded[0].data, metadata: recorded[0].metadata })).not.toContain(SECRET);
    const data = recorded[0].data as { configuration: EncryptedData; configuration_shape: unknown };
    expect(data.configuration.key_ref).toBe(`reactor:${reactor.id}`);
    expect(data.configuration_shape).toEqual([
      { name: 'api_key', type: 'string' },
      { name: 'sandbox', type: 'boolean' },
    ]);
    const opened = await vault.crypto.decrypt(vault.tenantId, `reactor:${reactor.id}`, data.configuration, 'reactor_configuration');
    expect(JSON.parse(opened)).toEqual({ api_key: SECRET, sandbox: true });
    await expect(vault.crypto.decrypt(vault.tenantId, `reactor:${reactor.id}`, data.configuration, 'data')).rejects.toBeInstanceOf(DataKeyUnavailableError);
  });

  it('answers a caller without reactor:read without the configuration, and the formula by id and name only', async () => {
    const formulaId = await vault.givenFormula();
    const reactor = await create(charge(formulaId), ['reactor:create']);
    expect(reactor).not.toHaveProperty('configuration');
    expect(reactor.formula).toEqual({ id: formulaId, name: 'Gateway' });
  });

  describe('refuses, recording nothing', () => {
    it('a formula that does not exist: 400 naming formula.id', async () => {
      const { error, recorded } = await whenRefused(vault.events, () => create(charge(randomUUID())));
      expect(error.kind).toBe('validation');
      expect(Object.keys(error.errors!)).toEqual(['formula.id']);
      expect(recorded).toEqual([]);
    });

    it('a configuration that does not fit the formula: 400', async () => {
      const formulaId = await vault.givenFormula();
      const { error, recorded } = await whenRefused(vault.events, () => create(charge(formulaId, { api_key: 42, sandbox: true })));
      expect(error.kind).toBe('validation');
      expect(JSON.stringify(error)).not.toContain(SECRET);
      expect(recorded).toEqual([]);
    });
  });
});
