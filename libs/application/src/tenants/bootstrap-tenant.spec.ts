// BootstrapTenantHandler on the embedded stores: tenant `default` with the bootstrap key when no tenant exists, nothing
// once it has been done (asked of the log), the completion of a creation interrupted half-way, and a short key refused.
import { apiKeys, systemClock } from '@vault/adapters';
import { MANAGEMENT_PERMISSIONS, OPERATOR_PERMISSIONS, applicationDecider, applicationStream } from '@vault/domain';
import { openApplicationVault, type ApplicationVault } from '../applications/application-vault.builders';
import { typesOf, whenRun } from '../shared/use-case.builders';
import { BOOTSTRAP_APPLICATION_ID, BOOTSTRAP_TENANT_ID, BootstrapTenantCommand, BootstrapTenantHandler } from './bootstrap-tenant';

const KEY = 'vault_bootstrap_key_0123456789abcdef';

describe('BootstrapTenantHandler', () => {
  let vault: ApplicationVault;
  let handler: BootstrapTenantHandler;

  beforeEach(async () => {
    vault = await openApplicationVault('bootstrap-tenant');
    handler = new BootstrapTenantHandler(vault.runner, vault.events, vault.tenants, apiKeys, systemClock);
  });
  afterEach(() => vault.close());

  const bootstrap = (key = KEY) => handler.execute(new BootstrapTenantCommand(key, 'startup'));

  it('records the management application with the bootstrap key, then TenantCreated `default`, at fixed ids', async () => {
    const { answer, recorded } = await whenRun(vault.events, () => bootstrap());
    expect(answer).toEqual({ tenant_id: BOOTSTRAP_TENANT_ID, management_key: KEY });
    expect(typesOf(recorded)).toEqual(['ApplicationCreated', 'TenantCreated']);
    expect(recorded[0].data).toMatchObject({ id: BOOTSTRAP_APPLICATION_ID, key_hash: apiKeys.hash(KEY), permissions: [...MANAGEMENT_PERMISSIONS] });
    expect(recorded[1].data).toMatchObject({ id: BOOTSTRAP_TENANT_ID, name: 'default', created_by: 'bootstrap' });
  });

  it('does nothing once done, and answers null', async () => {
    await bootstrap();
    const { answer, recorded } = await whenRun(vault.events, () => bootstrap());
    expect(answer).toBeNull();
    expect(recorded).toEqual([]);
  });

  it('completes a creation interrupted after its application: the application takes this key, then TenantCreated', async () => {
    const ctx = { tenantId: BOOTSTRAP_TENANT_ID, actor: { type: 'system', id: 'bootstrap' } as const, now: new Date(), correlationId: 'earlier' };
    await vault.runner.run(applicationDecider, applicationStream(BOOTSTRAP_APPLICATION_ID), {
      type: 'CreateApplication',
      id: BOOTSTRAP_APPLICATION_ID,
      keyHash: apiKeys.hash('an_earlier_key_0123456789abcdefghij'),
      input: { name: 'Management', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] },
      callerPermissions: OPERATOR_PERMISSIONS,
    }, ctx);
    const { answer, recorded } = await whenRun(vault.events, () => bootstrap());
    expect(answer).toEqual({ tenant_id: BOOTSTRAP_TENANT_ID, management_key: KEY });
    expect(typesOf(recorded)).toEqual(['ApplicationKeyRegenerated', 'TenantCreated']);
    expect(recorded[0].data).toMatchObject({ key_hash: apiKeys.hash(KEY) });
  });

  it('refuses a key shorter than 32 characters, recording nothing', async () => {
    await expect(bootstrap('short')).rejects.toThrow('VAULT_BOOTSTRAP_KEY must be at least 32 characters long');
    expect(await vault.events.headPosition()).toBeNull();
  });
});
