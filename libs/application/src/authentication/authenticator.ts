// Turns an API key into a principal: unknown, revoked (regenerated or deleted) and expired keys are all "not authenticated",
// and so is the key of an application whose tenant does not exist (a tenant creation interrupted before TenantCreated)
// or was deleted.
import { DomainError, effectivePermissions, effectiveRules, tenantDeletedError } from '@vault/domain';
import type { TenantKeys } from '../ports/token-crypto';
import type { ApplicationDocument, ApplicationReadModel, TenantReadModel } from '../ports/read-models';
import type { ApiKeys, Clock } from '../ports/system';
import type { Principal } from './principal';

const CACHE_SIZE = 10_000;

/** The principal an application acts as: its permissions and effective access rules, computed once here. */
export const principalOf = (app: ApplicationDocument): Principal => ({
  applicationId: app.id,
  tenantId: app.tenant_id,
  type: app.type,
  permissions: effectivePermissions(app),
  accessRules: effectiveRules(app),
});

export class Authenticator {
  /**
   * Key hash → application, valid while the read model's change stamp is unchanged (any application or tenant change,
   * by any process, clears it).
   */
  private readonly cache = new Map<string, ApplicationDocument | null>();
  private cacheStamp: number | null = null;
  private readonly knownTenants = new Set<string>();

  constructor(
    private readonly applications: ApplicationReadModel,
    private readonly tenants: TenantReadModel,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
    /** Asked on every request: a tenant deleted by any process sharing the key store is refused at once. */
    private readonly tenantKeys: Pick<TenantKeys, 'isTenantKeyDestroyed'>,
  ) {}

  async authenticate(key: string | undefined): Promise<Principal> {
    if (!key) throw new DomainError('unauthenticated', 'The SVC-API-KEY header is missing.');
    const app = await this.lookup(this.keys.hash(key));
    if (!app) throw new DomainError('unauthenticated', 'The API key is not valid.');
    if (this.tenantKeys.isTenantKeyDestroyed(app.tenant_id)) throw tenantDeletedError();
    if (app.expires_at !== null && Date.parse(app.expires_at) <= this.clock.now().getTime()) {
      throw new DomainError('unauthenticated', 'The API key has expired.');
    }
    return principalOf(app);
  }

  /**
   * Whether `key` still authenticates as `principal`'s application: asked again just before an answer leaves, so that a
   * request in flight when its application was deleted, its key regenerated or its expiry passed answers 401 like
   * every later request. Answered from the cache unless an application or tenant changed meanwhile.
   */
  async stillAuthenticates(key: string | undefined, principal: Principal): Promise<boolean> {
    if (!key) return false;
    const app = await this.lookup(this.keys.hash(key));
    if (!app || app.id !== principal.applicationId || this.tenantKeys.isTenantKeyDestroyed(app.tenant_id)) return false;
    return app.expires_at === null || Date.parse(app.expires_at) > this.clock.now().getTime();
  }

  private async lookup(keyHash: string): Promise<ApplicationDocument | null> {
    const stamp = this.applications.changeStamp?.();
    if (stamp === undefined) return this.find(keyHash);
    if (stamp !== this.cacheStamp) {
      this.cache.clear();
      this.cacheStamp = stamp;
    }
    if (this.cache.has(keyHash)) return this.cache.get(keyHash)!;
    const app = await this.find(keyHash);
    // Only known keys are cached: unknown ones must not let a flood of random keys evict the real ones.
    if (app) {
      if (this.cache.size >= CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(keyHash, app);
    }
    return app;
  }

  /**
   * The key's application, if its tenant exists: the tenant is written last, so this is what makes a new key usable.
   * A tenant seen to exist is not asked for again; its deletion is caught by the tenant key check on every request.
   */
  private async find(keyHash: string): Promise<ApplicationDocument | null> {
    const app = await this.applications.findByKeyHash(keyHash);
    if (!app) return null;
    if (this.knownTenants.has(app.tenant_id)) return app;
    const tenant = await this.tenants.get(app.tenant_id);
    if (!tenant || tenant.deleted) return null;
    if (this.knownTenants.size >= CACHE_SIZE) this.knownTenants.clear();
    this.knownTenants.add(app.tenant_id);
    return app;
  }
}
