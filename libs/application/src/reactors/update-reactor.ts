// PUT /reactors/{id}: the whole reactor but its formula, decided on the current reactor.
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { ReactorUpdater } from './reactor-updater';
import type { ReactorView } from './reactor-view';

export class UpdateReactorCommand extends VaultCommand<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly body: unknown,
  ) {
    super();
  }
}

export class UpdateReactorHandler implements UseCaseHandler<UpdateReactorCommand> {
  private readonly updater: ReactorUpdater;

  constructor(runner: CommandRunner, events: EventStore, crypto: TokenCrypto) {
    this.updater = new ReactorUpdater(runner, events, crypto);
  }

  execute({ caller, id, body }: UpdateReactorCommand): Promise<ReactorView> {
    return this.updater.update(caller, id, async () => body);
  }
}
