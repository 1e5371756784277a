// PUT /applications/{id}: the whole application's settings, within what the caller itself holds.
import type { ApplicationCommand, ApplicationInput } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toApplicationView, type ApplicationView } from './application-view';
import { held, runApplicationCommand } from './run-application-command';

export class UpdateApplicationCommand extends VaultCommand<ApplicationView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly input: ApplicationInput,
  ) {
    super();
  }
}

export class UpdateApplicationHandler implements UseCaseHandler<UpdateApplicationCommand> {
  constructor(private readonly runner: CommandRunner) {}

  async execute({ caller, id, input }: UpdateApplicationCommand): Promise<ApplicationView> {
    const command: ApplicationCommand = { type: 'UpdateApplication', id, input, callerPermissions: held(caller) };
    return toApplicationView(await runApplicationCommand(this.runner, contextOf(caller), id, command));
  }
}
