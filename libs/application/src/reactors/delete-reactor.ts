// DELETE /reactors/{id}: ReactorDeleted, then the answer waits for the key shredder to destroy the configuration's key.
import { reactorDecider, reactorStream, type ReactorCommand } from '@vault/domain';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';

export class DeleteReactorCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteReactorHandler implements UseCaseHandler<DeleteReactorCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteReactorCommand): Promise<void> {
    const tenantId = caller.principal.tenantId;
    const command: ReactorCommand = { type: 'DeleteReactor', data: { id } };
    const { position } = await this.runner.run(reactorDecider, reactorStream(tenantId, id), command, contextOf(caller));
    await awaitShredding(this.shredding, position);
  }
}
