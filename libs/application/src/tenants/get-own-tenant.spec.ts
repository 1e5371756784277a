// GetOwnTenantHandler on the embedded stores: the caller's own tenant, and a 404 once it is deleted.
import { apiKeys, systemClock, uuidGenerator } from '@vault/adapters';
import { openApplicationVault, type ApplicationVault } from '../applications/application-vault.builders';
import { aCaller, whenRefused } from '../shared/use-case.builders';
import { CreateTenantCommand, CreateTenantHandler } from './create-tenant';
import { GetOwnTenantHandler, GetOwnTenantQuery } from './get-own-tenant';

describe('GetOwnTenantHandler', () => {
  let vault: ApplicationVault;
  let handler: GetOwnTenantHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('get-own-tenant');
    handler = new GetOwnTenantHandler(vault.tenants);
  });
  afterAll(() => vault.close());

  const givenTenant = async (name: string) =>
    (await new CreateTenantHandler(vault.runner, uuidGenerator, apiKeys, systemClock).execute(new CreateTenantCommand(name, { type: 'operator', id: 'cli' }, 'given'))).tenant_id;

  it('answers the caller\'s tenant without its tombstone flag', async () => {
    const tenantId = await givenTenant('acme');
    expect(await handler.execute(new GetOwnTenantQuery(aCaller({ tenantId })))).toEqual({ id: tenantId, name: 'acme', created_by: 'cli', created_at: expect.any(String) });
  });

  it('refuses a tenant that does not exist: 404', async () => {
    const { error } = await whenRefused(vault.events, () => handler.execute(new GetOwnTenantQuery(aCaller())));
    expect([error.kind, error.message]).toEqual(['not_found', 'Tenant was not found.']);
  });
});
