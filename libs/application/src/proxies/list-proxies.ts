// GET /proxies: a page of the tenant's proxies, ordered by name, each with its secrets opened.
import { DomainError } from '@vault/domain';
import { formulaNameMatcher, type Page, type ProxyDocument, type ProxyListQuery, type ProxyReadModel } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toProxyView, type ProxyView } from './proxy-view';
import { openProxySecrets } from './sealing/proxy-secrets';

export class ListProxiesQuery extends VaultQuery<Page<ProxyView>> {
  constructor(
    readonly caller: Caller,
    readonly query: ProxyListQuery,
    /** Only these proxies (lower-case ids, at most MAX_LISTED_IDS), as the hosted vaults' `?id=` lists them; null: all. */
    readonly ids: readonly string[] | null = null,
  ) {
    super();
  }
}

export const MAX_LISTED_IDS = 100;

export class ListProxiesHandler implements UseCaseHandler<ListProxiesQuery> {
  constructor(
    private readonly proxies: ProxyReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, query, ids }: ListProxiesQuery): Promise<Page<ProxyView>> {
    const page = ids === null ? await this.proxies.list(caller.principal.tenantId, query) : await this.listed(caller.principal.tenantId, query, ids);
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

  /** The named proxies of the tenant that match the name filter, in list order, a page of them. */
  private async listed(tenantId: string, query: ProxyListQuery, ids: readonly string[]): Promise<Page<ProxyDocument>> {
    const matches = formulaNameMatcher(query.name);
    const found = (await Promise.all([...new Set(ids)].map((id) => this.proxies.get(tenantId, id)))).filter(
      (proxy): proxy is ProxyDocument => proxy !== null && matches(proxy.name),
    );
    found.sort((a, b) => compare(a.name.toLowerCase(), b.name.toLowerCase()) || compare(a.id, b.id));
    return { total: found.length, items: found.slice((query.page - 1) * query.size, query.page * query.size) };
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
