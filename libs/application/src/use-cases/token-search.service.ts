// POST /tokens/search: parse the query, hash its data values, AND it with the access-rule container scope, search.
// The scope is part of the query the index runs, so tokens no rule covers are neither returned nor counted.
import { accessScope, DomainError, normalizeSearchValue, parseQuery, QueryNode, selectRule, TokenCrypto } from '@vault/domain';
import type { Page } from '../ports/read-models';
import type { TokenSearchIndex } from '../ports/token-search-index';
import type { Principal } from './principal';
import { toTokenView, TokenView } from './token-view';

export interface TokenSearchInput {
  query: string | null;
  page: number;
  size: number;
}

export class TokenSearchService {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
  ) {}

  async search(principal: Principal, input: TokenSearchInput, now: Date): Promise<Page<TokenView>> {
    const parsed = parseQuery(input.query);
    const rules = principal.accessRules;
    const scope = accessScope(rules, 'token:search');
    if (scope === 'nothing') return { total: 0, items: [] };
    const user = parsed && this.hashData(parsed, principal.tenantId);
    const query: QueryNode | null = scope && user ? { kind: 'and', children: [scope, user] } : (scope ?? user);
    const page = await this.index.search({ tenantId: principal.tenantId, query, now: now.getTime(), page: input.page, size: input.size });
    const items = await Promise.all(
      page.items.map((token) => {
        // The scope guarantees a rule grants token:search on one of the token's containers.
        const rule = selectRule(rules, token.containers, 'token:search')!;
        // A token whose key a delete in flight has just shredded is left out, not a failed search.
        return toTokenView(token, rule, this.crypto).catch((error: unknown) => {
          if (error instanceof DomainError && error.kind === 'not_found') return null;
          throw error;
        });
      }),
    );
    return { total: page.total, items: items.filter((item): item is TokenView => item !== null) };
  }

  /** The read model holds keyed hashes of normalised values only, so `data:` values are hashed the same way. */
  private hashData(node: QueryNode, tenantId: string): QueryNode {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { ...node, children: node.children.map((child) => this.hashData(child, tenantId)) };
      case 'not':
        return { ...node, child: this.hashData(node.child, tenantId) };
      case 'data':
        return { kind: 'data', value: this.crypto.searchHash(tenantId, normalizeSearchValue(node.value)) };
      default:
        return node;
    }
  }
}
