// Turns an API key into a principal: unknown, revoked (regenerated or deleted) and expired keys are all "not authenticated".
import { DomainError, effectivePermissions } from '@vault/domain';
import type { ApplicationReadModel } from '../ports/read-models';
import type { ApiKeys, Clock } from '../ports/system';
import type { Principal } from './principal';

export class Authenticator {
  constructor(
    private readonly applications: ApplicationReadModel,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
  ) {}

  async authenticate(key: string | undefined): Promise<Principal> {
    if (!key) throw new DomainError('unauthenticated', 'The SVC-API-KEY header is missing.');
    const app = await this.applications.findByKeyHash(this.keys.hash(key));
    if (!app) throw new DomainError('unauthenticated', 'The API key is not valid.');
    if (app.expires_at !== null && Date.parse(app.expires_at) <= this.clock.now().getTime()) {
      throw new DomainError('unauthenticated', 'The API key has expired.');
    }
    return {
      applicationId: app.id,
      tenantId: app.tenant_id,
      type: app.type,
      permissions: effectivePermissions(app),
      rawPermissions: app.permissions,
      rules: app.rules,
    };
  }
}
