// Tenant creation (operator CLI and development bootstrap): a tenant plus its first management application.
//
// That is two streams, and no event store of ours appends to two atomically (EventStoreDB has no multi-stream
// transaction). So the order makes an interruption harmless instead: the management application first, TenantCreated
// last. Until TenantCreated exists, the application's key authenticates nobody (the Authenticator refuses keys of
// unknown tenants), so a crash in between leaves an inert application and no tenant. The operator's retry creates a
// new tenant; the bootstrap uses fixed ids, so the next start-up completes the very creation it interrupted.
import {
  Actor,
  CommandContext,
  decideTenant,
  evolveTenant,
  MANAGEMENT_PERMISSIONS,
  OPERATOR_PERMISSIONS,
  TenantCommand,
  TenantEvent,
  TenantState,
  tenantStream,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { TenantReadModel } from '../ports/read-models';
import type { Clock, IdGenerator } from '../ports/system';
import type { ApplicationsService } from './applications.service';

export interface CreatedTenant {
  tenant_id: string;
  management_key: string;
}

/**
 * The bootstrap's tenant and management application. Fixed rather than derived from VAULT_BOOTSTRAP_KEY: ids are shown
 * to callers, and one derived from the key would let anyone who sees it test guesses of a weak key offline.
 */
export const BOOTSTRAP_TENANT_ID = 'b0075700-0000-4000-8000-000000000001';
export const BOOTSTRAP_APPLICATION_ID = 'b0075700-0000-4000-8000-000000000002';

const tenantAggregate = { evolve: evolveTenant, decide: decideTenant };
const managementApplication = () => ({ name: 'Management', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] });

export class TenantsService {
  constructor(
    private readonly runner: CommandRunner,
    private readonly events: EventStore,
    private readonly applications: ApplicationsService,
    private readonly tenants: TenantReadModel,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {}

  /** The operator's `tenant create`: a new tenant and its management key. */
  async create(name: string, actor: Actor, correlationId: string): Promise<CreatedTenant> {
    const tenantId = this.ids.newId();
    const ctx = this.context(tenantId, actor, correlationId);
    const command = this.checked({ type: 'CreateTenant', id: tenantId, name }, ctx);
    const app = await this.applications.create(ctx, OPERATOR_PERMISSIONS, managementApplication());
    await this.complete(command, ctx);
    return { tenant_id: tenantId, management_key: app.key };
  }

  /**
   * VAULT_BOOTSTRAP_KEY: creates tenant `default`, with a management application whose key is `key`, when no tenant
   * exists yet; completes it when an earlier start-up was interrupted half-way. Returns null when there was nothing to do.
   */
  async bootstrap(key: string, correlationId: string): Promise<CreatedTenant | null> {
    if (key.length < 32) throw new Error('VAULT_BOOTSTRAP_KEY must be at least 32 characters long');
    // Done before, asked of the log: a read model that has not caught up yet must not make it run twice.
    if ((await this.events.readStream(tenantStream(BOOTSTRAP_TENANT_ID))).length > 0) return null;
    if ((await this.tenants.count()) > 0) return null;
    const ctx = this.context(BOOTSTRAP_TENANT_ID, { type: 'system', id: 'bootstrap' }, correlationId);
    const command = this.checked({ type: 'CreateTenant', id: BOOTSTRAP_TENANT_ID, name: 'default' }, ctx);
    // An interrupted attempt may have left the application (inert: its tenant does not exist); it then takes this key.
    const app = await this.applications.createOrRekey(ctx, BOOTSTRAP_APPLICATION_ID, managementApplication(), key);
    await this.complete(command, ctx);
    return { tenant_id: BOOTSTRAP_TENANT_ID, management_key: app.key };
  }

  private context(tenantId: string, actor: Actor, correlationId: string): CommandContext {
    return { tenantId, actor, now: this.clock.now(), correlationId };
  }

  /** Decides on a fresh tenant before anything is written, so a bad name leaves not even an inert application behind. */
  private checked(command: TenantCommand, ctx: CommandContext): TenantCommand {
    decideTenant(command, null, ctx);
    return command;
  }

  /** TenantCreated: the last write, the one that makes the management key usable. */
  private async complete(command: TenantCommand, ctx: CommandContext): Promise<void> {
    await this.runner.run<TenantState, TenantCommand, TenantEvent>(tenantAggregate, tenantStream(command.id), command, ctx);
  }
}
