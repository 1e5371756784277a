// The Authenticator and its key cache on the embedded read model, with applications changed through their handlers:
// a key the cache holds is refused the moment the change that revokes it has returned, whichever change it was.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  AesGcmTokenCrypto,
  apiKeys,
  applicationsTable,
  SqliteKeyStore,
  SqliteApplicationReadModel,
  SqliteTenantReadModel,
  systemClock,
  tenantsTable,
  uuidGenerator,
} from '@vault/adapters';
import { ApplicationInput, DomainError, tenantDecider, tenantStream } from '@vault/domain';
import { applicationsProjection } from '../projections/applications.projection';
import { tenantsProjection } from '../projections/tenants.projection';
import { openEmbedded, operatorContext, type Embedded } from '@vault/test-support/embedded-stores';
import { CreateApplicationCommand, CreateApplicationHandler } from '../applications/create-application';
import { DeleteApplicationCommand, DeleteApplicationHandler } from '../applications/delete-application';
import { RegenerateApplicationKeyCommand, RegenerateApplicationKeyHandler } from '../applications/regenerate-application-key';
import { UpdateApplicationCommand, UpdateApplicationHandler } from '../applications/update-application';
import { Authenticator } from './authenticator';
import type { Principal } from './principal';
import { CreateTenantCommand, CreateTenantHandler } from '../tenants/create-tenant';
import { DeleteTenantCommand, DeleteTenantHandler } from '../tenants/delete-tenant';
import type { Caller } from '../shared/use-case';

const PRIVATE: ApplicationInput = { name: 'billing', type: 'private', permissions: ['token:read', 'token:search'] };
const HOUR = 3_600_000;

describe('Authenticator', () => {
  let vault: Embedded;
  let now: Date;
  let authenticator: Authenticator;
  let admin: Caller;
  let keyStore: SqliteKeyStore;
  let crypto: AesGcmTokenCrypto;

  beforeEach(async () => {
    vault = await openEmbedded({
      name: 'authenticator',
      collections: [tenantsTable, applicationsTable],
      projections: [tenantsProjection, applicationsProjection],
    });
    now = new Date();
    keyStore = SqliteKeyStore.open(vault.dir);
    crypto = new AesGcmTokenCrypto(randomBytes(32), keyStore);
    authenticator = new Authenticator(
      new SqliteApplicationReadModel(vault.model),
      new SqliteTenantReadModel(vault.model),
      apiKeys,
      { now: () => now },
      crypto,
    );
    const tenant = await new CreateTenantHandler(vault.runner(), uuidGenerator, apiKeys, systemClock).execute(
      new CreateTenantCommand('acme', { type: 'operator', id: 'cli' }, 'corr-tenant'),
    );
    admin = { principal: await authenticator.authenticate(tenant.management_key), now: new Date(), requestId: 'req-admin' };
  });
  afterEach(async () => {
    keyStore.close();
    await vault.close();
  });

  const createApplication = (input: ApplicationInput, caller = admin) =>
    new CreateApplicationHandler(vault.runner(), uuidGenerator, apiKeys).execute(new CreateApplicationCommand(caller, input));
  const regenerate = (id: string) => new RegenerateApplicationKeyHandler(vault.runner(), apiKeys).execute(new RegenerateApplicationKeyCommand(admin, id));
  const remove = (id: string) => new DeleteApplicationHandler(vault.runner()).execute(new DeleteApplicationCommand(admin, id));
  const update = (id: string, input: ApplicationInput) => new UpdateApplicationHandler(vault.runner()).execute(new UpdateApplicationCommand(admin, id, input));
  /** Authenticates once, so that the key's application is in the cache before the change under test. */
  const cached = async (key: string): Promise<string> => {
    await authenticator.authenticate(key);
    return key;
  };
  /** An application of a tenant whose TenantCreated was never written (a tenant creation interrupted half-way). */
  const applicationOfUnfinishedTenant = async () => {
    const tenantId = randomUUID();
    return { tenantId, app: await createApplication(PRIVATE, { ...admin, principal: { ...admin.principal, tenantId } }) };
  };

  it.each<[string, () => Promise<string>]>([
    [
      'the old key, right after RegenerateApplicationKeyHandler returns, though the cache held it',
      async () => {
        const app = await createApplication(PRIVATE);
        await cached(app.key);
        await regenerate(app.id);
        return app.key;
      },
    ],
    [
      "a deleted application's key, right after DeleteApplicationHandler returns, though the cache held it",
      async () => {
        const app = await createApplication(PRIVATE);
        await cached(app.key);
        await remove(app.id);
        return app.key;
      },
    ],
    [
      "an expiring application's key at its expires_at, though the cache held it",
      async () => {
        const app = await createApplication({ name: 'temp', type: 'expiring', permissions: ['token:read'], expires_at: new Date(now.getTime() + HOUR).toISOString() });
        await cached(app.key);
        now = new Date(Date.parse(app.expires_at!));
        return app.key;
      },
    ],
    [
      "an expiring application's key after its expires_at",
      async () => {
        const app = await createApplication({ name: 'temp', type: 'expiring', permissions: ['token:read'], expires_at: new Date(now.getTime() + HOUR).toISOString() });
        now = new Date(now.getTime() + 2 * HOUR);
        return app.key;
      },
    ],
    ['the key of an application whose tenant does not exist', async () => (await applicationOfUnfinishedTenant()).app.key],
    ['a well-formed key that was never issued', async () => apiKeys.generate('private')],
    [
      'every key of a deleted tenant, right after DeleteTenantHandler returns, though the cache held it',
      async () => {
        const app = await createApplication(PRIVATE);
        await cached(app.key);
        await new DeleteTenantHandler(vault.runner(), crypto, systemClock).execute(
          new DeleteTenantCommand(admin.principal.tenantId, { type: 'operator', id: 'cli' }, 'corr-delete'),
        );
        return app.key;
      },
    ],
    [
      'a key of a tenant whose key another process destroyed (the key store is all this process sees change)',
      async () => {
        const app = await createApplication(PRIVATE);
        await cached(app.key);
        const other = SqliteKeyStore.open(vault.dir);
        new AesGcmTokenCrypto(randomBytes(32), other).destroyTenantKey(admin.principal.tenantId);
        other.close();
        return app.key;
      },
    ],
  ])('refuses %s', async (_, arrange) => {
    const key = await arrange();
    const refused = authenticator.authenticate(key);
    await expect(refused).rejects.toBeInstanceOf(DomainError);
    await expect(refused).rejects.toMatchObject({ kind: 'unauthenticated' });
  });

  it.each<[string, () => Promise<{ key: string; expected: Partial<Principal> }>]>([
    [
      'the new key, right after RegenerateApplicationKeyHandler returns',
      async () => {
        const app = await createApplication(PRIVATE);
        await cached(app.key);
        const regenerated = await regenerate(app.id);
        return { key: regenerated.key, expected: { applicationId: app.id, type: 'private' } };
      },
    ],
    [
      "an application's key with the permissions an update left it, though the cache held the old ones",
      async () => {
        const app = await createApplication(PRIVATE);
        await cached(app.key);
        await update(app.id, { ...PRIVATE, permissions: ['token:read'] });
        return { key: app.key, expected: { applicationId: app.id, permissions: new Set(['token:read']) } };
      },
    ],
    [
      "an expiring application's key a millisecond before its expires_at",
      async () => {
        const app = await createApplication({ name: 'temp', type: 'expiring', permissions: ['token:read'], expires_at: new Date(now.getTime() + HOUR).toISOString() });
        now = new Date(Date.parse(app.expires_at!) - 1);
        return { key: app.key, expected: { applicationId: app.id, type: 'expiring' } };
      },
    ],
    [
      'the key of an application whose tenant was refused before, once the tenant is created',
      async () => {
        const { tenantId, app } = await applicationOfUnfinishedTenant();
        await expect(authenticator.authenticate(app.key)).rejects.toMatchObject({ kind: 'unauthenticated' });
        const create = { type: 'CreateTenant' as const, id: tenantId, name: 'late' };
        await vault.runner().run(tenantDecider, tenantStream(tenantId), create, operatorContext('corr-late', new Date(), tenantId));
        return { key: app.key, expected: { applicationId: app.id, tenantId } };
      },
    ],
  ])('accepts %s', async (_, arrange) => {
    const { key, expected } = await arrange();
    expect(await authenticator.authenticate(key)).toMatchObject(expected);
  });

  describe('stillAuthenticates: asked again as the answer of a request in flight leaves', () => {
    const expiring = () => createApplication({ name: 'temp', type: 'expiring', permissions: ['token:read'], expires_at: new Date(now.getTime() + HOUR).toISOString() });
    it.each<[string, (app: { id: string; key: string }) => Promise<unknown>]>([
      ['its application was deleted', (app) => remove(app.id)],
      ['its key was regenerated', (app) => regenerate(app.id)],
      ['its expiry passed', async () => (now = new Date(now.getTime() + 2 * HOUR))],
    ])('is false once %s, though the request authenticated before', async (_what, revoke) => {
      const app = await expiring();
      const principal = await authenticator.authenticate(app.key);
      expect(await authenticator.stillAuthenticates(app.key, principal)).toBe(true);
      await revoke(app);
      expect(await authenticator.stillAuthenticates(app.key, principal)).toBe(false);
    });

    it("is false for another application's key, and after its rules changed is still true", async () => {
      const app = await expiring();
      const other = await createApplication(PRIVATE);
      const principal = await authenticator.authenticate(app.key);
      expect(await authenticator.stillAuthenticates(other.key, principal)).toBe(false);
      await update(app.id, { name: 'renamed', type: 'expiring', permissions: [], expires_at: new Date(now.getTime() + HOUR).toISOString() });
      expect(await authenticator.stillAuthenticates(app.key, principal)).toBe(true);
    });
  });
});
