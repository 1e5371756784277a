// The reactor use cases on the embedded stores: the snapshots come from the streams (a formula recorded a moment ago is
// usable before any projection), the configuration is recorded sealed under the reactor's own key and purpose, and a
// formula change asks the reactor read model only once it has caught up with the log, or answers 409 to retry.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AesGcmTokenCrypto,
  formulasTable,
  IsolatedVmCodeChecker,
  reactorsTable,
  SqliteFormulaReadModel,
  SqliteKeyStore,
  SqliteReactorReadModel,
  uuidGenerator,
} from '@vault/adapters';
import { DataKeyUnavailableError, DomainError, formulaStream, reactorFormulaDecider, reactorStream, type EncryptedData } from '@vault/domain';
import type { ProjectionWaiter } from '../projections/projector';
import { formulasProjection } from '../projections/formulas.projection';
import { reactorsProjection } from '../projections/reactors.projection';
import { openEmbedded, type Embedded } from '../../../../test/support/embedded-stores';
import { UpdateReactorFormulaCommand, UpdateReactorFormulaHandler } from '../reactor-formulas/create-reactor-formula';
import { CreateReactorCommand, CreateReactorHandler, FormulaReactors, GetReactorHandler, GetReactorQuery } from './create-reactor';
import type { Caller } from '../shared/use-case';

const SECRET = 'sk_live_4f9a0c1e7b';
const CONFIGURATION = [
  { name: 'api_key', description: null, type: 'string' as const },
  { name: 'sandbox', description: null, type: 'boolean' as const },
];
const formulaBody = (configuration: object[] = CONFIGURATION) => ({
  name: 'Gateway',
  type: 'private',
  code: 'module.exports = async () => ({ raw: 1 });',
  configuration,
  request_parameters: [],
});
/** Answers at once, as the CLI's waiter does: nothing is projected before a command answers. */
const noWait: ProjectionWaiter = { waitFor: async () => true };

describe('reactor use cases', () => {
  let vault: Embedded;
  let keys: SqliteKeyStore;
  let crypto: AesGcmTokenCrypto;
  const checker = new IsolatedVmCodeChecker();
  const tenantId = randomUUID();
  const caller: Caller = {
    principal: { applicationId: randomUUID(), tenantId, type: 'management', permissions: new Set(['reactor:create', 'reactor:read', 'reactor:update', 'reactor:delete']), accessRules: [] },
    now: new Date(),
    requestId: 'req-1',
  };

  beforeEach(async () => {
    vault = await openEmbedded({ name: 'reactors', collections: [formulasTable, reactorsTable], projections: [formulasProjection, reactorsProjection], start: false });
    keys = SqliteKeyStore.open(vault.dir);
    crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
  });
  afterEach(async () => {
    keys.close();
    await vault.close();
  });

  /** A private formula of the tenant, recorded without waiting for any projection. */
  const recordFormula = async (): Promise<string> => {
    const id = randomUUID();
    const input = { ...formulaBody(), description: null, icon: null, type: 'private' as const, configuration: CONFIGURATION };
    await vault.runner(vault.events, { waiter: noWait }).run(reactorFormulaDecider, formulaStream(id), { type: 'CreateReactorFormula', data: { id, input } }, {
      tenantId,
      actor: { type: 'application', id: caller.principal.applicationId },
      now: new Date(),
      correlationId: 'c',
    });
    return id;
  };
  const createReactor = (formulaId: string) =>
    new CreateReactorHandler(vault.runner(vault.events, { waiter: noWait }), vault.events, crypto, uuidGenerator).execute(
      new CreateReactorCommand(caller, { name: 'Charge', formula: { id: formulaId }, configuration: { api_key: SECRET, sandbox: true } }),
    );
  const updateFormula = (formulaId: string, waiter: ProjectionWaiter, timeoutMs = 2000) =>
    new UpdateReactorFormulaHandler(
      vault.runner(vault.events, { waiter: noWait }),
      checker,
      new FormulaReactors(vault.events, waiter, new SqliteReactorReadModel(vault.model), timeoutMs),
    ).execute(new UpdateReactorFormulaCommand(caller, formulaId, formulaBody([CONFIGURATION[0]])));

  it('creates on a formula read from its stream, before any read model has it', async () => {
    const formulaId = await recordFormula();
    const reactor = await createReactor(formulaId);
    expect(reactor).toMatchObject({ name: 'Charge', configuration: { api_key: SECRET, sandbox: true }, formula: { id: formulaId, name: 'Gateway' } });
  });

  it('records the configuration sealed under reactor:<id> with its own purpose, and its shape in the clear', async () => {
    const reactor = await createReactor(await recordFormula());
    const [created] = await vault.events.readStream(reactorStream(tenantId, reactor.id));
    expect(JSON.stringify({ data: created.data, metadata: created.metadata })).not.toContain(SECRET);
    const data = created.data as { configuration: EncryptedData; configuration_shape: unknown };
    expect(data.configuration.key_ref).toBe(`reactor:${reactor.id}`);
    expect(data.configuration_shape).toEqual([
      { name: 'api_key', type: 'string' },
      { name: 'sandbox', type: 'boolean' },
    ]);
    expect(JSON.parse(await crypto.decrypt(tenantId, `reactor:${reactor.id}`, data.configuration, 'reactor_configuration'))).toEqual({ api_key: SECRET, sandbox: true });
    await expect(crypto.decrypt(tenantId, `reactor:${reactor.id}`, data.configuration, 'data')).rejects.toBeInstanceOf(DataKeyUnavailableError);
    // Once the key is gone, reading the reactor is a 404, never a failure that would answer 500.
    await vault.projector.start();
    const get = new GetReactorHandler(new SqliteReactorReadModel(vault.model), new SqliteFormulaReadModel(vault.model), crypto);
    expect((await get.execute(new GetReactorQuery(caller, reactor.id))).configuration).toEqual({ api_key: SECRET, sandbox: true });
    await keys.destroy(tenantId, `reactor:${reactor.id}`);
    await expect(get.execute(new GetReactorQuery(caller, reactor.id))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('checks a formula change against a reactor recorded but not yet projected: it waits for the read model, then 409s', async () => {
    const formulaId = await recordFormula();
    const reactor = await createReactor(formulaId);
    // Nothing has been projected yet: the projector starts while the formula update waits for it.
    setTimeout(() => void vault.projector.start(), 100);
    const refused = await updateFormula(formulaId, vault.projector).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ kind: 'conflict', errors: { reactors: [`Charge (${reactor.id})`] } });
    const formula = await vault.events.readStream(formulaStream(formulaId));
    expect(formula.map((event) => event.type)).toEqual(['ReactorFormulaCreated']);
  });

  it('answers 409 (retry) and records nothing when the read models do not catch up in time', async () => {
    const formulaId = await recordFormula();
    await createReactor(formulaId);
    await expect(updateFormula(formulaId, vault.projector, 50)).rejects.toMatchObject({
      kind: 'conflict',
      message: expect.stringContaining('retry'),
    });
    expect((await vault.events.readStream(formulaStream(formulaId))).map((event) => event.type)).toEqual(['ReactorFormulaCreated']);
  });
});
