// GET /proxies/{id}: the proxy from its read model, its secrets opened (proxy:read holders only reach here).
import { notFound } from '@vault/domain';
import type { ProxyReadModel } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toProxyView, type ProxyView } from './proxy-view';
import { openProxySecrets } from './sealing/proxy-secrets';

export class GetProxyQuery extends VaultQuery<ProxyView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetProxyHandler implements UseCaseHandler<GetProxyQuery> {
  constructor(
    private readonly proxies: ProxyReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, id }: GetProxyQuery): Promise<ProxyView> {
    const proxy = await this.proxies.get(caller.principal.tenantId, id);
    if (!proxy) throw notFound('Proxy');
    return toProxyView(proxy, await openProxySecrets(this.crypto, proxy));
  }
}
