// PUT /tenants/self: the caller's own tenant, renamed.
import { notFound, tenantDecider, tenantStream } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { tenantView, type TenantView } from './tenant-view';

export class RenameOwnTenantCommand extends VaultCommand<TenantView> {
  constructor(
    readonly caller: Caller,
    readonly name: string,
  ) {
    super();
  }
}

export class RenameOwnTenantHandler implements UseCaseHandler<RenameOwnTenantCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, name }: RenameOwnTenantCommand): Promise<TenantView> {
    const ctx = contextOf(caller);
    const { state } = await this.runner.run(tenantDecider, tenantStream(caller.principal.tenantId), { type: 'RenameTenant', name }, ctx);
    if (!state || state.deleted) throw notFound('Tenant');
    return tenantView(state);
  }
}
