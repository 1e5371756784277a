// The reactor and reactor formula specs' vault: the embedded log and their read models, real AES-GCM crypto over a key
// store in the same data dir, and the tenant's management application. Formulas are given straight on their stream
// (nothing projected), reactors as POST /reactors creates them.
import { randomBytes, randomUUID } from 'node:crypto';
import { AesGcmTokenCrypto, formulasTable, reactorsTable, SqliteFormulaReadModel, SqliteKeyStore, SqliteReactorReadModel, uuidGenerator } from '@vault/adapters';
import { formulaStream, reactorFormulaDecider, type ConfigurationElement } from '@vault/domain';
import { openEmbedded } from '@vault/test-support/embedded-stores';
import { formulasProjection } from '../projections/formulas.projection';
import type { ProjectionWaiter } from '../projections/projector';
import { reactorsProjection } from '../projections/reactors.projection';
import { aCaller } from '../shared/use-case.builders';
import type { Caller } from '../shared/use-case';
import { CreateReactorCommand, CreateReactorHandler } from './create-reactor';
import type { ReactorView } from './reactor-view';

export const SECRET = 'sk_live_4f9a0c1e7b';
export const CONFIGURATION: ConfigurationElement[] = [
  { name: 'api_key', description: null, type: 'string' },
  { name: 'sandbox', description: null, type: 'boolean' },
];
export const REACTOR_PERMISSIONS = ['reactor:create', 'reactor:read', 'reactor:update', 'reactor:delete'];

/** A formula create body of the tenant's own. */
export const formulaBody = (configuration: object[] = CONFIGURATION) => ({
  name: 'Gateway',
  type: 'private',
  code: 'module.exports = async () => ({ raw: 1 });',
  configuration,
  request_parameters: [],
});

/** Answers at once, as the CLI's waiter does: nothing is projected before a command answers. */
export const noWait: ProjectionWaiter = { waitFor: async () => true };

export type ReactorVault = Awaited<ReturnType<typeof openReactorVault>>;

/** `projected`: the projector runs and writes wait for it; else nothing is projected until the spec starts it. */
export async function openReactorVault(name: string, { projected = false } = {}) {
  const vault = await openEmbedded({ name, collections: [formulasTable, reactorsTable], projections: [formulasProjection, reactorsProjection], start: projected });
  const keys = SqliteKeyStore.open(vault.dir);
  const crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
  const runner = projected ? vault.runner() : vault.runner(vault.events, { waiter: noWait });
  const tenantId = randomUUID();
  const applicationId = randomUUID();
  const caller = (permissions: string[] = REACTOR_PERMISSIONS): Caller => aCaller({ tenantId, applicationId, type: 'management', permissions });
  return {
    vault,
    events: vault.events,
    keys,
    crypto,
    runner,
    tenantId,
    caller,
    reactors: new SqliteReactorReadModel(vault.model),
    formulas: new SqliteFormulaReadModel(vault.model),
    /** Given: a private formula of the tenant, recorded on its stream. */
    givenFormula: async (configuration: ConfigurationElement[] = CONFIGURATION): Promise<string> => {
      const id = randomUUID();
      const input = { ...formulaBody(), description: null, icon: null, type: 'private' as const, configuration };
      await runner.run(reactorFormulaDecider, formulaStream(id), { type: 'CreateReactorFormula', data: { id, input } }, {
        tenantId,
        actor: { type: 'application', id: applicationId },
        now: new Date(),
        correlationId: 'given',
      });
      return id;
    },
    /** Given: a reactor on the formula, created as POST /reactors does. */
    givenReactor: (formulaId: string, configuration: object = { api_key: SECRET, sandbox: true }): Promise<ReactorView> =>
      new CreateReactorHandler(runner, vault.events, crypto, uuidGenerator).execute(
        new CreateReactorCommand(caller(), { name: 'Charge', formula: { id: formulaId }, configuration }),
      ),
    close: async () => {
      keys.close();
      await vault.close();
    },
  };
}
