// DeleteTenantHandler on the embedded stores, with the real key store: TenantDeleted, then the tenant's key destroyed
// before the answer; a tenant already deleted is refused with nothing recorded.
import { randomBytes } from 'node:crypto';
import { AesGcmTokenCrypto, apiKeys, SqliteKeyStore, systemClock, uuidGenerator } from '@vault/adapters';
import { openApplicationVault, type ApplicationVault } from '../applications/application-vault.builders';
import { aCaller, typesOf, whenRefused, whenRun } from '../shared/use-case.builders';
import { CreateTenantCommand, CreateTenantHandler } from './create-tenant';
import { DeleteTenantCommand, DeleteTenantHandler } from './delete-tenant';

describe('DeleteTenantHandler', () => {
  let vault: ApplicationVault;
  let keys: SqliteKeyStore;
  let crypto: AesGcmTokenCrypto;
  let handler: DeleteTenantHandler;

  beforeAll(async () => {
    vault = await openApplicationVault('delete-tenant');
    keys = SqliteKeyStore.open(vault.vault.dir);
    crypto = new AesGcmTokenCrypto(randomBytes(32), keys);
    handler = new DeleteTenantHandler(vault.runner, crypto, systemClock);
  });
  afterAll(async () => {
    keys.close();
    await vault.close();
  });

  const givenTenant = async () =>
    (await new CreateTenantHandler(vault.runner, uuidGenerator, apiKeys, systemClock).execute(new CreateTenantCommand('acme', { type: 'operator', id: 'cli' }, 'given'))).tenant_id;
  const ownTenant = (tenantId: string) => DeleteTenantCommand.ownTenant(aCaller({ tenantId, type: 'management', permissions: ['tenant:delete'] }));

  it("records TenantDeleted, then destroys the tenant's key", async () => {
    const tenantId = await givenTenant();
    await crypto.encrypt(tenantId, 'a-token', 'data');
    const { recorded } = await whenRun(vault.events, () => handler.execute(ownTenant(tenantId)));
    expect(typesOf(recorded)).toEqual(['TenantDeleted']);
    expect(recorded[0].data).toMatchObject({ id: tenantId });
    expect(crypto.isTenantKeyDestroyed(tenantId)).toBe(true);
  });

  it('refuses a tenant already deleted: 404, nothing recorded', async () => {
    const tenantId = await givenTenant();
    await handler.execute(ownTenant(tenantId));
    const { error, recorded } = await whenRefused(vault.events, () => handler.execute(ownTenant(tenantId)));
    expect([error.kind, error.message]).toEqual(['not_found', 'No such tenant.']);
    expect(recorded).toEqual([]);
  });
});
