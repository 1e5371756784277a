// POST /tokens/search: the caller's query, its data values hashed, ANDed with the container scope of its token:search
// rules. The scope is part of the query the index runs, so tokens no rule covers are neither returned nor counted.
import { accessScope, DomainError, normalizeSearchValue, parseQuery, ruleFor, type QueryNode } from '@vault/domain';
import { recordAccess } from '../audit/record-access';
import type { AccessLog } from '../ports/access-log';
import type { Page } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenDocument, TokenSearchIndex } from '../ports/token-search-index';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toTokenView, type TokenView } from './token-view';

export interface TokenSearchInput {
  query: string | null;
  page: number;
  size: number;
}

export class SearchTokensQuery extends VaultQuery<Page<TokenView>> {
  constructor(
    readonly caller: Caller,
    readonly input: TokenSearchInput,
  ) {
    super();
  }
}

export class SearchTokensHandler implements UseCaseHandler<SearchTokensQuery> {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, input }: SearchTokensQuery): Promise<Page<TokenView>> {
    const { principal } = caller;
    const parsed = parseQuery(input.query);
    const scope = accessScope(principal.accessRules, 'token:search');
    if (scope === 'nothing') return { total: 0, items: [] };
    const user = parsed && this.hashData(parsed, principal.tenantId);
    const query: QueryNode | null = scope && user ? { kind: 'and', children: [scope, user] } : (scope ?? user);
    const page = await this.index.search({ tenantId: principal.tenantId, query, now: caller.now.getTime(), page: input.page, size: input.size });
    const items = (await Promise.all(page.items.map((token) => this.shown(caller, token)))).filter((item) => item !== null);
    // One record per search that shows plaintext: how many tokens it revealed, never the query.
    const revealed = items.filter((item) => item.revealed).length;
    if (revealed > 0) {
      await recordAccess(this.access, caller, [{ entity_type: 'token', entity_id: null, operation: 'search', via: 'search', count: revealed }]);
    }
    return { total: page.total, items: items.map(({ view }) => view) };
  }

  /** A token found, as the caller's token:search rule shows it (the scope guarantees one covers it); null once shredded. */
  private async shown(caller: Caller, token: TokenDocument): Promise<{ view: TokenView; revealed: boolean } | null> {
    try {
      const rule = ruleFor(caller.principal.accessRules, token, 'token:search');
      return { view: await toTokenView(token, rule, this.crypto), revealed: rule.transform === 'reveal' };
    } catch (error) {
      // A token whose key a delete in flight has just shredded is left out, not a failed search.
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    }
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
