// Tenant creation (operator CLI and development bootstrap): a tenant plus its first management application.
import { Actor, MANAGEMENT_PERMISSIONS, OPERATOR_PERMISSIONS, TenantCommand, TenantEvent, TenantState, decideTenant, evolveTenant, tenantStream } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { TenantReadModel } from '../ports/read-models';
import type { Clock, IdGenerator } from '../ports/system';
import type { ApplicationsService } from './applications.service';

export interface CreatedTenant {
  tenant_id: string;
  management_key: string;
}

export class TenantsService {
  constructor(
    private readonly runner: CommandRunner,
    private readonly applications: ApplicationsService,
    private readonly tenants: TenantReadModel,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  async create(name: string, actor: Actor, correlationId: string, managementKey?: string): Promise<CreatedTenant> {
    const id = this.ids.newId();
    const now = this.clock.now();
    await this.runner.run<TenantState, TenantCommand, TenantEvent>(
      { evolve: evolveTenant, decide: decideTenant },
      tenantStream(id),
      { type: 'CreateTenant', id, name },
      { tenantId: id, actor, now, correlationId },
    );
    const app = await this.applications.create(
      { tenantId: id, actor, now, correlationId },
      OPERATOR_PERMISSIONS,
      { name: 'Management', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] },
      { key: managementKey },
    );
    return { tenant_id: id, management_key: app.key };
  }

  /** VAULT_BOOTSTRAP_KEY: creates tenant `default` once, when no tenant exists yet. Returns null when there was nothing to do. */
  async bootstrap(key: string, correlationId: string): Promise<CreatedTenant | null> {
    if (key.length < 32) throw new Error('VAULT_BOOTSTRAP_KEY must be at least 32 characters long');
    if ((await this.tenants.count()) > 0) return null;
    return this.create('default', { type: 'system', id: 'bootstrap' }, correlationId, key);
  }
}
