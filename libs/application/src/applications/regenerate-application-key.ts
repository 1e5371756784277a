// POST /applications/{id}/regenerate: a new key in place of the old one, returned once; only its hash is recorded.
import type { CommandRunner } from '../commands/command-runner';
import type { ApiKeys } from '../ports/system';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toApplicationView, type ApplicationWithKey } from './application-view';
import { held, runApplicationCommand } from './run-application-command';

export class RegenerateApplicationKeyCommand extends VaultCommand<ApplicationWithKey> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class RegenerateApplicationKeyHandler implements UseCaseHandler<RegenerateApplicationKeyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly keys: ApiKeys,
  ) {}

  async execute({ caller, id }: RegenerateApplicationKeyCommand): Promise<ApplicationWithKey> {
    let key = '';
    // The key's prefix follows the type in the stream, read in the same attempt as the decision (never a stale read model).
    const state = await runApplicationCommand(this.runner, contextOf(caller), id, (current) => {
      key = this.keys.generate(current?.type ?? 'private');
      return { type: 'RegenerateApplicationKey', id, keyHash: this.keys.hash(key), callerPermissions: held(caller) };
    });
    return { ...toApplicationView(state), key };
  }
}
