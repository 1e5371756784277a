// deduplicate_token: a create answers with the newest live token of the same type and fingerprint instead of a new
// one, if the caller's token:create rules cover it. The scope is part of the search itself, so a token outside those
// rules neither matches nor tells, by being found, that the value exists.
import { accessScope, deduplicationRule, type AccessRule, type QueryNode } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenDocument, TokenSearchIndex } from '../ports/token-search-index';
import { toTokenView, type TokenView } from './token-view';

export interface DuplicateLookup {
  tenantId: string;
  /** The rules of the application that creates the token. */
  rules: readonly AccessRule[];
  type: string;
  fingerprint: string;
  now: Date;
}

/** A deduplicated token as the caller is shown it, and whether that showed its stored data in plaintext (an access). */
export interface DuplicateView {
  view: TokenView;
  revealed: boolean;
}

/** The newest live token of the lookup's type and fingerprint inside every one of `scopes`, or null. */
export async function newestDuplicate(
  index: TokenSearchIndex,
  lookup: DuplicateLookup,
  scopes: ReadonlyArray<QueryNode | null | 'nothing'>,
): Promise<TokenDocument | null> {
  if (scopes.includes('nothing')) return null;
  const query: QueryNode = {
    kind: 'and',
    children: [
      { kind: 'term', field: 'fingerprint', value: lookup.fingerprint },
      { kind: 'term', field: 'type', value: lookup.type },
      ...scopes.filter((scope): scope is QueryNode => scope !== null && scope !== 'nothing'),
    ],
  };
  const page = await index.search({ tenantId: lookup.tenantId, query, now: lookup.now.getTime(), page: 1, size: 1 });
  return page.items[0] ?? null;
}

/**
 * The newest live token with this type and fingerprint that one of the caller's token:create rules covers, shown under
 * the rule for ITS containers (never the requested ones); null when there is none.
 */
export async function findDuplicateView(index: TokenSearchIndex, crypto: TokenCrypto, lookup: DuplicateLookup): Promise<DuplicateView | null> {
  const existing = await newestDuplicate(index, lookup, [accessScope(lookup.rules, 'token:create')]);
  if (!existing) return null;
  const rule = deduplicationRule(lookup.rules, existing)!;
  return { view: await toTokenView(existing, rule, crypto), revealed: rule.transform === 'reveal' };
}
