// GET /proxies: a page of the tenant's proxies, ordered by name, each with its secrets opened.
import { DomainError } from '@vault/domain';
import type { Page, ProxyListQuery, ProxyReadModel } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toProxyView, type ProxyView } from './proxy-view';
import { openProxySecrets } from './sealing/proxy-secrets';

export class ListProxiesQuery extends VaultQuery<Page<ProxyView>> {
  constructor(
    readonly caller: Caller,
    readonly query: ProxyListQuery,
  ) {
    super();
  }
}

export class ListProxiesHandler implements UseCaseHandler<ListProxiesQuery> {
  constructor(
    private readonly proxies: ProxyReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, query }: ListProxiesQuery): Promise<Page<ProxyView>> {
    const page = await this.proxies.list(caller.principal.tenantId, query);
    const items = await Promise.all(
      page.items.map(async (proxy) => {
        // A proxy whose key a delete in flight has just shredded is left out, not a failed list.
        const secrets = await openProxySecrets(this.crypto, proxy).catch((error: unknown) => {
          if (error instanceof DomainError && error.kind === 'not_found') return null;
          throw error;
        });
        return secrets === null ? null : toProxyView(proxy, secrets);
      }),
    );
    return { total: page.total, items: items.filter((item): item is ProxyView => item !== null) };
  }
}
