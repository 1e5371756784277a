// Deletes a tenant with everything in it: DELETE /tenants/self (the caller's own tenant, `actor` its application) or
// the operator's `tenant delete --id`.
import { tenantDecider, tenantStream, type Actor, type CommandContext } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { Clock } from '../ports/system';
import type { TenantKeys } from '../ports/token-crypto';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';

export class DeleteTenantCommand extends VaultCommand<void> {
  constructor(
    readonly tenantId: string,
    readonly actor: Actor,
    readonly correlationId: string,
  ) {
    super();
  }

  static ownTenant(caller: Caller): DeleteTenantCommand {
    const ctx = contextOf(caller);
    return new DeleteTenantCommand(caller.principal.tenantId, ctx.actor, ctx.correlationId);
  }
}

/**
 * TenantDeleted first, then the tenant key is destroyed, before the answer. A crash in between leaves the event, and
 * the key shredder, which follows TenantDeleted from its own checkpoint, destroys the key when it catches up; until
 * then the tenant's tombstone in the read model refuses its keys. The read models drop the tenant's documents as they
 * apply the event, which the runner waits for.
 */
export class DeleteTenantHandler implements UseCaseHandler<DeleteTenantCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly tenantKeys: TenantKeys,
    private readonly clock: Clock,
  ) {}

  async execute({ tenantId, actor, correlationId }: DeleteTenantCommand): Promise<void> {
    const ctx: CommandContext = { tenantId, actor, now: this.clock.now(), correlationId };
    await this.runner.run(tenantDecider, tenantStream(tenantId), { type: 'DeleteTenant' }, ctx);
    this.tenantKeys.destroyTenantKey(tenantId);
  }
}
