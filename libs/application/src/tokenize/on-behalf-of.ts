// A reactor's `tokenize`, tokenized on behalf of the caller who invoked the reactor: the tokenizing application (the
// reactor's, or the caller itself) creates the tokens, but the invoking caller must learn no more from the answer than
// its own rules show of what its args used. The access policy decides (tokenize-access.policy.ts); this file shows.
import { accessScope, cappedShowing, onBehalfDuplicate, type AccessRule, type CappedShowing, type TokenRecord, type UseInsight, type ValidTokenCreate } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenSearchIndex } from '../ports/token-search-index';
import type { Caller } from '../shared/use-case';
import { newestDuplicate, type DuplicateLookup, type DuplicateView } from '../tokens/deduplicate-token';
import { toTokenView, type TokenView } from '../tokens/token-view';

export interface OnBehalfOf {
  /** The invoking caller: a deduplication that shows it stored plaintext is recorded as its access, not the reactor's. */
  invoker: Caller;
  /** The invoking caller's rules: deduplication returns only tokens its token:create rules cover too. */
  rules: readonly AccessRule[];
  /**
   * The invoking caller's least revealing token:read transform over the tokens its args detokenized, or null when the
   * args held none. Set: every token is shown by the invoking caller's token:read rule at most this revealing, and a
   * token the invoking caller's read or search rules would show more revealingly is refused (403), never created.
   * Below `reveal` (idOnlyCap), more: the answer is an array of IdOnlyViews in body order, not the body's shape (its
   * keys come from the code, which may have taken them from the data), and the tokens are created without search
   * indexes: a caller without reveal can never change what they match on.
   */
  cap: UseInsight | null;
}

/**
 * What a reactor's token is shown as when the invoking caller does not reveal every token its args used: no data, no
 * mask, and nothing else computed from the data (fingerprint, search indexes), since a new mask or fingerprint over the
 * same data may show more than the caller's rule showed of the token it came from.
 */
export type IdOnlyView = Pick<TokenView, 'id' | 'type' | 'containers' | 'metadata' | 'expires_at' | 'created_by' | 'created_at'>;

/** A cap below `reveal`: the tokens made for the invoking caller are shown as IdOnlyViews, in an array. */
export const idOnlyCap = (cap: UseInsight | null | undefined): boolean => cap != null && cap !== 'reveal';

export const idOnlyView = (token: Pick<TokenView, keyof IdOnlyView>): IdOnlyView => ({
  id: token.id,
  type: token.type,
  containers: token.containers,
  metadata: token.metadata,
  ...(token.expires_at === undefined || token.expires_at === null ? {} : { expires_at: token.expires_at }),
  created_by: token.created_by,
  created_at: token.created_at,
});

/**
 * The request as a token made from data the invoking caller does not see whole: nothing derived from the data that
 * the caller's own reads and searches of the new token could show later (the mask, the search indexes and the
 * fingerprint are data too). No mask, no search indexes (neither the type's defaults nor the code's), and a fingerprint
 * of a random value: it matches no guess, no other token and no later deduplication.
 */
export const withoutDerivedValues = (request: ValidTokenCreate, nonce: string): ValidTokenCreate => ({
  ...request,
  deduplicate_token: false,
  draft: { ...request.draft, search_indexes: [], mask: null },
  prepared: { ...request.prepared, search_values: [], masked: null, fingerprint_input: `derived-under-cap\u0000${nonce}` },
});

/**
 * A reactor's deduplication: the newest live token with this type and fingerprint that the token:create rules of both
 * the tokenizing application and the invoking caller cover (the invoking caller must not learn, through the reactor's
 * application, whether a value exists), shown as the access policy allows the invoking caller; null when there is none
 * it may see, and a new token is created as when nothing matched.
 */
export async function duplicateOnBehalf(
  index: TokenSearchIndex,
  crypto: TokenCrypto,
  lookup: DuplicateLookup,
  onBehalfOf: OnBehalfOf,
): Promise<DuplicateView | null> {
  const scopes = [accessScope(lookup.rules, 'token:create'), accessScope(onBehalfOf.rules, 'token:create')];
  const existing = await newestDuplicate(index, lookup, scopes);
  if (!existing) return null;
  const showing = onBehalfDuplicate(lookup.rules, onBehalfOf.rules, onBehalfOf.cap, existing);
  if (!showing) return null;
  return { view: await shownAs(existing, showing, crypto), revealed: showing.transform === 'reveal' && !showing.idLevel };
}

/** A token made for the invoking caller, shown by its token:read rule at most as `cap` (the access policy's cappedShowing). */
export const cappedView = (token: TokenRecord, rules: readonly AccessRule[], cap: UseInsight, crypto: TokenCrypto): Promise<TokenView> =>
  shownAs(token, cappedShowing(rules, token.containers, cap), crypto);

const shownAs = async (token: TokenRecord, { transform, idLevel }: CappedShowing, crypto: TokenCrypto): Promise<TokenView> => {
  const view = await toTokenView(token, { transform }, crypto);
  if (!idLevel) return view;
  const { fingerprint: _computedFromData, ...idLevelFields } = view;
  return idLevelFields as TokenView;
};
