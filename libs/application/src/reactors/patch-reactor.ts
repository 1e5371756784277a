// PATCH /reactors/{id}: an RFC 7396 merge patch of the PUT body, resolved against the current reactor.
import { assertKeptSettingsReadable, mergeReactorPatch, reactorBodyOf } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { ReactorUpdater } from './reactor-updater';
import type { ReactorView } from './reactor-view';
import { openConfiguration } from './sealing/reactor-configuration';

export class PatchReactorCommand extends VaultCommand<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly patch: unknown,
  ) {
    super();
  }
}

export class PatchReactorHandler implements UseCaseHandler<PatchReactorCommand> {
  private readonly updater: ReactorUpdater;

  constructor(
    runner: CommandRunner,
    events: EventStore,
    private readonly crypto: TokenCrypto,
  ) {
    this.updater = new ReactorUpdater(runner, events, crypto);
  }

  execute({ caller, id, patch }: PatchReactorCommand): Promise<ReactorView> {
    // The patch merges into the stored configuration, opened here in memory only; the result obeys a PUT's rules.
    return this.updater.update(caller, id, async (current) => {
      const body = reactorBodyOf(current, await openConfiguration(this.crypto, current));
      assertKeptSettingsReadable(body, patch, caller.principal.permissions.has('reactor:read'));
      return mergeReactorPatch(body, patch);
    });
  }
}
