// PUT /proxies/{id}: the whole proxy anew (same body as a create); its key never changes.
import type { DestinationHosts } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { FormulaCodeChecker } from '../ports/formula-code-checker';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { ProxyUpdater } from './proxy-updater';
import type { ProxyView } from './proxy-view';

export class UpdateProxyCommand extends VaultCommand<ProxyView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly body: unknown,
  ) {
    super();
  }
}

export class UpdateProxyHandler implements UseCaseHandler<UpdateProxyCommand> {
  private readonly updater: ProxyUpdater;

  constructor(runner: CommandRunner, events: EventStore, crypto: TokenCrypto, checker: FormulaCodeChecker, hosts: DestinationHosts) {
    this.updater = new ProxyUpdater(runner, events, crypto, checker, hosts);
  }

  execute({ caller, id, body }: UpdateProxyCommand): Promise<ProxyView> {
    return this.updater.update(caller, id, () => ({ body, patch: null }));
  }
}
