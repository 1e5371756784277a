// DELETE /proxies/{id}: ProxyDeleted, then the answer waits for the key shredder to destroy the key of its secrets.
import { proxyDecider, proxyStream, type ProxyCommand } from '@vault/domain';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';

export class DeleteProxyCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteProxyHandler implements UseCaseHandler<DeleteProxyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteProxyCommand): Promise<void> {
    const command: ProxyCommand = { type: 'DeleteProxy', data: { id } };
    const { position } = await this.runner.run(proxyDecider, proxyStream(caller.principal.tenantId, id), command, contextOf(caller));
    await awaitShredding(this.shredding, position);
  }
}
