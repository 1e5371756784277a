// VAULT_BOOTSTRAP_KEY: creates tenant `default`, with a management application whose key is the bootstrap key, when no
// tenant exists yet; completes it when an earlier start-up was interrupted half-way (tenant-creation.ts).
import { OPERATOR_PERMISSIONS, tenantStream, type CommandContext } from '@vault/domain';
import { runApplicationCommand } from '../applications/run-application-command';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { TenantReadModel } from '../ports/read-models';
import type { ApiKeys, Clock } from '../ports/system';
import { VaultCommand, type UseCaseHandler } from '../shared/use-case';
import { checkedTenant, completeTenant, managementApplication, type CreatedTenant } from './tenant-creation';

/**
 * The bootstrap's tenant and management application. Fixed rather than derived from VAULT_BOOTSTRAP_KEY: ids are shown
 * to callers, and one derived from the key would let anyone who sees it test guesses of a weak key offline.
 */
export const BOOTSTRAP_TENANT_ID = 'b0075700-0000-4000-8000-000000000001';
export const BOOTSTRAP_APPLICATION_ID = 'b0075700-0000-4000-8000-000000000002';

/** Answers null when there was nothing to do. */
export class BootstrapTenantCommand extends VaultCommand<CreatedTenant | null> {
  constructor(
    readonly key: string,
    readonly correlationId: string,
  ) {
    super();
  }
}

export class BootstrapTenantHandler implements UseCaseHandler<BootstrapTenantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly events: EventStore,
    private readonly tenants: TenantReadModel,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
  ) {}

  async execute({ key, correlationId }: BootstrapTenantCommand): Promise<CreatedTenant | null> {
    if (key.length < 32) throw new Error('VAULT_BOOTSTRAP_KEY must be at least 32 characters long');
    // Done before, asked of the log: a read model that has not caught up yet must not make it run twice.
    if ((await this.events.readStream(tenantStream(BOOTSTRAP_TENANT_ID))).length > 0) return null;
    if ((await this.tenants.count()) > 0) return null;
    const ctx: CommandContext = { tenantId: BOOTSTRAP_TENANT_ID, actor: { type: 'system', id: 'bootstrap' }, now: this.clock.now(), correlationId };
    const command = checkedTenant({ type: 'CreateTenant', id: BOOTSTRAP_TENANT_ID, name: 'default' }, ctx);
    // An interrupted attempt may have left the application (inert: its tenant does not exist); it then takes this key.
    const keyHash = this.keys.hash(key);
    const id = BOOTSTRAP_APPLICATION_ID;
    await runApplicationCommand(this.runner, ctx, id, (current) =>
      current && !current.deleted
        ? { type: 'RegenerateApplicationKey', id, keyHash, callerPermissions: OPERATOR_PERMISSIONS }
        : { type: 'CreateApplication', id, keyHash, input: managementApplication(), callerPermissions: OPERATOR_PERMISSIONS },
    );
    // Another start-up on the same log may have completed it meanwhile: then this one created nothing.
    return (await completeTenant(this.runner, command, ctx)) ? { tenant_id: BOOTSTRAP_TENANT_ID, management_key: key } : null;
  }
}
