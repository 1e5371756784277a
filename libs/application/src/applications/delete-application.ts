// DELETE /applications/{id}: allowed, as every application write, only within what the caller itself holds.
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { held, runApplicationCommand } from './run-application-command';

export class DeleteApplicationCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class DeleteApplicationHandler implements UseCaseHandler<DeleteApplicationCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, id }: DeleteApplicationCommand): Promise<void> {
    await runApplicationCommand(this.runner, contextOf(caller), id, { type: 'DeleteApplication', id, callerPermissions: held(caller) });
  }
}
