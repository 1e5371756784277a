// The operator's `tenant create`: a new tenant and its management key (tenant-creation.ts: in which order, and why).
import { OPERATOR_PERMISSIONS, type Actor, type CommandContext } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { ApiKeys, Clock, IdGenerator } from '../ports/system';
import { runApplicationCommand } from '../applications/run-application-command';
import { VaultCommand, type UseCaseHandler } from '../shared/use-case';
import { checkedTenant, completeTenant, managementApplication, type CreatedTenant } from './tenant-creation';

export class CreateTenantCommand extends VaultCommand<CreatedTenant> {
  constructor(
    readonly name: string,
    readonly actor: Actor,
    readonly correlationId: string,
  ) {
    super();
  }
}

export class CreateTenantHandler implements UseCaseHandler<CreateTenantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly ids: IdGenerator,
    private readonly keys: ApiKeys,
    private readonly clock: Clock,
  ) {}

  async execute({ name, actor, correlationId }: CreateTenantCommand): Promise<CreatedTenant> {
    const tenantId = this.ids.newId();
    const ctx: CommandContext = { tenantId, actor, now: this.clock.now(), correlationId };
    const command = checkedTenant({ type: 'CreateTenant', id: tenantId, name }, ctx);
    const applicationId = this.ids.newId();
    const key = this.keys.generate('management');
    await runApplicationCommand(this.runner, ctx, applicationId, {
      type: 'CreateApplication',
      id: applicationId,
      keyHash: this.keys.hash(key),
      input: managementApplication(),
      callerPermissions: OPERATOR_PERMISSIONS,
    });
    await completeTenant(this.runner, command, ctx);
    return { tenant_id: tenantId, management_key: key };
  }
}
