// POST /applications: the key is returned once, here; only its hash is recorded.
import { isApplicationType, type ApplicationInput } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { ApiKeys, IdGenerator } from '../ports/system';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toApplicationView, type ApplicationWithKey } from './application-view';
import { held, runApplicationCommand } from './run-application-command';

export class CreateApplicationCommand extends VaultCommand<ApplicationWithKey> {
  constructor(
    readonly caller: Caller,
    readonly input: ApplicationInput,
  ) {
    super();
  }
}

export class CreateApplicationHandler implements UseCaseHandler<CreateApplicationCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly ids: IdGenerator,
    private readonly keys: ApiKeys,
  ) {}

  async execute({ caller, input }: CreateApplicationCommand): Promise<ApplicationWithKey> {
    const id = this.ids.newId();
    const key = this.keys.generate(isApplicationType(input.type) ? input.type : 'private');
    const state = await runApplicationCommand(this.runner, contextOf(caller), id, {
      type: 'CreateApplication',
      id,
      keyHash: this.keys.hash(key),
      input,
      callerPermissions: held(caller),
    });
    return { ...toApplicationView(state), key };
  }
}
