// The step PUT and PATCH /proxies/{id} share: the body a PUT would send, built from the current proxy in the attempt
// that decides, checked against what the caller may change without proxy:read, validated, sealed, recorded.
import {
  assertProxyChangeAllowed,
  findVisibleProxy,
  proxyApplicationId,
  proxyChange,
  proxyDecider,
  proxyStream,
  validateProxyInput,
  type DestinationHosts,
  type ProxyCommand,
  type ProxyRecord,
  type ProxySecrets,
  type ValidProxy,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { FormulaCodeChecker } from '../ports/formula-code-checker';
import type { TokenCrypto } from '../ports/token-crypto';
import { contextOf, type Caller } from '../shared/use-case';
import { proxyApplication } from './proxy-application';
import { assertTransformsCompile } from './proxy-code-check';
import { activeProxy, shownTo, toProxyView, type ProxyView } from './proxy-view';
import { openProxySecrets, sealProxy, validProxyOf } from './sealing/proxy-secrets';

/** What a change makes of the current proxy: the body a PUT would send, and the merge patch it came from (null: a PUT). */
export interface ProxyChangeRequest {
  body: unknown;
  patch: Record<string, unknown> | null;
}

export class ProxyUpdater {
  constructor(
    private readonly runner: CommandRunner,
    private readonly events: EventStore,
    private readonly crypto: TokenCrypto,
    private readonly checker: FormulaCodeChecker,
    private readonly hosts: DestinationHosts,
  ) {}

  async update(caller: Caller, id: string, change: (current: ValidProxy) => ProxyChangeRequest): Promise<ProxyView> {
    const ctx = contextOf(caller);
    const tenantId = caller.principal.tenantId;
    let secrets: ProxySecrets | null = null;
    const { state } = await this.runner.run(
      proxyDecider,
      proxyStream(tenantId, id),
      async (current): Promise<ProxyCommand> => {
        const proxy: ProxyRecord = findVisibleProxy(current, ctx);
        const opened = await openProxySecrets(this.crypto, proxy);
        const before = validProxyOf(proxy, opened);
        const { body, patch } = change(before);
        const application = await proxyApplication(this.events, proxyApplicationId(body));
        const valid = validateProxyInput(body, { tenantId, application, hosts: this.hosts });
        assertProxyChangeAllowed({ canRead: caller.principal.permissions.has('proxy:read'), ...proxyChange(patch) });
        await assertTransformsCompile(this.checker, valid, tenantId);
        secrets = { key: opened.key, ...valid };
        const content = await sealProxy(this.crypto, tenantId, id, valid, opened.key, proxy.key_hash);
        return { type: 'UpdateProxy', data: { id, content, application } };
      },
      ctx,
    );
    return shownTo(caller, toProxyView(activeProxy(state), secrets!));
  }
}
