// PATCH /proxies/{id}: an RFC 7396 merge patch of the PUT body, resolved against the current proxy (its secrets
// opened in memory only); the result obeys a PUT's rules and what a change may do without proxy:read.
import { mergeProxyPatch, proxyBodyOf, validationError, type DestinationHosts } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { FormulaCodeChecker } from '../ports/formula-code-checker';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { ProxyUpdater } from './proxy-updater';
import type { ProxyView } from './proxy-view';

export class PatchProxyCommand extends VaultCommand<ProxyView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly patch: unknown,
  ) {
    super();
  }
}

export class PatchProxyHandler implements UseCaseHandler<PatchProxyCommand> {
  private readonly updater: ProxyUpdater;

  constructor(runner: CommandRunner, events: EventStore, crypto: TokenCrypto, checker: FormulaCodeChecker, hosts: DestinationHosts) {
    this.updater = new ProxyUpdater(runner, events, crypto, checker, hosts);
  }

  execute({ caller, id, patch }: PatchProxyCommand): Promise<ProxyView> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw validationError({ body: ['The merge patch must be a JSON object.'] });
    const object = patch as Record<string, unknown>;
    return this.updater.update(caller, id, (current) => ({ body: mergeProxyPatch(proxyBodyOf(current), object), patch: object }));
  }
}
