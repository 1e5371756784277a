// POST /proxies: the body validated (the domain's one 400), its code transforms checked, a random key generated, the
// secrets sealed together under the proxy's own key, ProxyCreated recorded with only the key's hash in the clear.
import { assertProxyIdFree, proxyDecider, proxyApplicationId, proxyStream, validateProxyInput, type DestinationHosts, type ProxyCommand } from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { EventStore } from '../ports/event-store';
import type { FormulaCodeChecker } from '../ports/formula-code-checker';
import type { ApiKeys, IdGenerator } from '../ports/system';
import type { TokenCrypto } from '../ports/token-crypto';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { proxyApplication } from './proxy-application';
import { assertTransformsCompile } from './proxy-code-check';
import { activeProxy, shownTo, toProxyView, type ProxyView } from './proxy-view';
import { sealProxy } from './sealing/proxy-secrets';

export class CreateProxyCommand extends VaultCommand<ProxyView> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class CreateProxyHandler implements UseCaseHandler<CreateProxyCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly events: EventStore,
    private readonly crypto: TokenCrypto,
    private readonly checker: FormulaCodeChecker,
    private readonly ids: IdGenerator,
    private readonly keys: ApiKeys,
    private readonly hosts: DestinationHosts,
  ) {}

  async execute({ caller, body }: CreateProxyCommand): Promise<ProxyView> {
    const tenantId = caller.principal.tenantId;
    const id = this.ids.newId();
    const key = this.keys.generateProxyKey();
    let secrets = null as Parameters<typeof toProxyView>[1] | null;
    const { state } = await this.runner.run(
      proxyDecider,
      proxyStream(tenantId, id),
      async (current): Promise<ProxyCommand> => {
        // The decider's own rule, asked before sealing, so a taken id never leaves a key behind.
        assertProxyIdFree(current);
        const application = await proxyApplication(this.events, proxyApplicationId(body));
        const valid = validateProxyInput(body, { tenantId, application, hosts: this.hosts });
        await assertTransformsCompile(this.checker, valid, tenantId);
        secrets = { key, ...valid };
        const content = await sealProxy(this.crypto, tenantId, id, valid, key, this.keys.hash(key));
        return { type: 'CreateProxy', data: { id, content, application } };
      },
      contextOf(caller),
    );
    return shownTo(caller, toProxyView(activeProxy(state), secrets!));
  }
}
