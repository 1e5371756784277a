// RenameOwnTenantHandler on the embedded stores: TenantRenamed for the caller's own tenant, and a bad name refused.
import { apiKeys, systemClock, uuidGenerator } from '@vault/adapters';
import { openApplicationVault, type ApplicationVault } from '../applications/application-vault.builders';
import { aCaller, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CreateTenantCommand, CreateTenantHandler } from './create-tenant';
import { RenameOwnTenantCommand, RenameOwnTenantHandler } from './rename-own-tenant';

describe('RenameOwnTenantHandler', () => {
  let vault: ApplicationVault;
  let handler: RenameOwnTenantHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('rename-own-tenant');
    handler = new RenameOwnTenantHandler(vault.runner);
  });
  afterAll(() => vault.close());

  const givenTenant = async () =>
    (await new CreateTenantHandler(vault.runner, uuidGenerator, apiKeys, systemClock).execute(new CreateTenantCommand('acme', { type: 'operator', id: 'cli' }, 'given'))).tenant_id;

  it('records TenantRenamed and answers the tenant as it now is', async () => {
    const tenantId = await givenTenant();
    const caller = aCaller({ tenantId, type: 'management', permissions: ['tenant:update'] });
    const { answer, recorded } = await whenRun(vault.events, () => handler.execute(new RenameOwnTenantCommand(caller, '  Acme Inc  ')));
    expect(answer).toMatchObject({ id: tenantId, name: 'Acme Inc', modified_by: caller.principal.applicationId });
    expect(typesOf(recorded)).toEqual(['TenantRenamed']);
  });

  it('refuses a bad name: 400, nothing recorded', async () => {
    const tenantId = await givenTenant();
    const { error, recorded } = await whenRefused(vault.events, () => handler.execute(new RenameOwnTenantCommand(aCaller({ tenantId }), '')));
    expect(error.errors).toEqual({ name: ['name must be 1 to 200 characters long'] });
    expect(recorded).toEqual([]);
  });
});
