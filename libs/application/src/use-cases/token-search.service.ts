// POST /tokens/search: parse the query, hash its data values, AND it with the access-rule container scope, search.
// The scope is part of the query the index runs, so tokens no rule covers are neither returned nor counted.
import {
  allowedContainers,
  effectiveRules,
  normalizeSearchValue,
  parseQuery,
  QueryNode,
  selectRule,
  TokenCrypto,
} from '@vault/domain';
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
    const rules = effectiveRules({ permissions: principal.rawPermissions, rules: principal.rules });
    const grants = allowedContainers(rules, 'token:search');
    if (grants.length === 0) return { total: 0, items: [] };
    // A grant on `/` covers every token, so it needs no condition at all (the common case: applications without rules).
    const scope: QueryNode | null = grants.some((g) => g.container === '/')
      ? null
      : grants.length === 1
        ? { kind: 'container', path: grants[0].container, descendants: true }
        : { kind: 'or', children: grants.map((g) => ({ kind: 'container', path: g.container, descendants: true }) as QueryNode) };
    const user = parsed && this.hashData(parsed, principal.tenantId);
    const query: QueryNode | null = scope && user ? { kind: 'and', children: [scope, user] } : (scope ?? user);
    const page = await this.index.search({ tenantId: principal.tenantId, query, now: now.getTime(), page: input.page, size: input.size });
    const items = await Promise.all(
      page.items.map((token) => {
        // The scope guarantees a rule grants token:search on one of the token's containers.
        const rule = selectRule(rules, token.containers, 'token:search')!;
        return toTokenView(token, rule, this.crypto);
      }),
    );
    return { total: page.total, items };
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
