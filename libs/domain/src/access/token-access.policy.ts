// The access policy (API.md "What a write may reveal"): the one owner of every rule that decides what a caller may see
// of a token or learn by writing to it. Reads, searches, creates (deduplication), updates and deletes all ask here.
import type { QueryNode } from '../search/query.ast';
import { forbidden } from '../shared/errors';
import { isTokenPermission, PERMISSIONS } from '../permissions/permission-catalogue';
import { allowedContainers, selectRule, type AccessRule, type AccessTransform } from './access-rules';
import type { TokenDraft } from '../tokens/token-prepare';
import { tokenTypeRules, type JsonValue, type TokenType } from '../tokens/token-types';

/** How much of a token's data a view shows: no rule < redact < mask < reveal. */
type Insight = AccessTransform | 'none';

const RANK: Record<Insight, number> = { none: 0, redact: 1, mask: 2, reveal: 3 };

/**
 * The permissions under which a caller can learn something of a token's data: every token permission but
 * `token:delete`, which shows nothing. (`token:create` shows an existing token through deduplication, `token:update`
 * in its response, `token:use` hands the data to reactor code.)
 */
const DATA_PERMISSIONS = PERMISSIONS.map((p) => p.type).filter((type) => isTokenPermission(type) && type !== 'token:delete');

const revealsMore = (a: Insight, b: Insight): boolean => RANK[a] > RANK[b];

/**
 * What each of the caller's operations shows of a token in these containers: per permission, the transform of the rule
 * that applies (`none` where no rule does). A write may never raise any of them (container moves).
 */
export const insightInto = (rules: readonly AccessRule[], containers: readonly string[]): Record<string, Insight> =>
  Object.fromEntries(DATA_PERMISSIONS.map((permission) => [permission, selectRule(rules, containers, permission)?.transform ?? 'none']));

/**
 * The container condition a search (or a deduplication lookup) runs under for `permission`: null when a grant on `/`
 * covers every token, 'nothing' when no rule grants it. Part of the query itself, so uncovered tokens are never counted.
 */
export const accessScope = (rules: readonly AccessRule[], permission: string): QueryNode | null | 'nothing' => {
  const grants = allowedContainers(rules, permission);
  if (grants.length === 0) return 'nothing';
  if (grants.some((grant) => grant.container === '/')) return null;
  const nodes: QueryNode[] = grants.map((grant) => ({ kind: 'container', path: grant.container, descendants: true }));
  return nodes.length === 1 ? nodes[0] : { kind: 'or', children: nodes };
};

/**
 * The rule under which deduplication may return an existing token: one granting `token:create` on one of the EXISTING
 * token's containers (never the requested ones). Null: the existing token does not exist for this caller.
 */
export const deduplicationRule = (rules: readonly AccessRule[], existing: { containers: readonly string[] }): AccessRule | null =>
  selectRule(rules, existing.containers, 'token:create');

/** The patch fields whose change re-derives values from the token's data. */
const DERIVING_PATCH_FIELDS = ['mask', 'search_indexes', 'fingerprint_expression'] as const;
type DerivingField = (typeof DERIVING_PATCH_FIELDS)[number];

/**
 * A PATCH that changes the mask, the search indexes or the fingerprint expression without giving new data re-derives
 * values from data the caller did not supply: it needs the caller's `token:update` rule for the token to be `reveal`.
 * Checked on the raw patch, before anything is evaluated, so not even an evaluation error can answer for the data.
 * Throws 403 naming each such field.
 */
export const assertMayRederive = (
  updateRule: AccessRule,
  patch: Record<string, unknown>,
  current: Pick<TokenDraft, DerivingField> & { type: TokenType },
): void => {
  if (patch.data !== undefined || updateRule.transform === 'reveal') return;
  const changed = changedDerivingFields(patch, current);
  if (changed.length === 0) return;
  throw forbidden(
    `Changing ${changed.join(', ')} without new data needs a reveal rule for token:update on this token: ` +
      `it would compute new values from data this application may not see.`,
  );
};

/** The deriving fields a patch changes (null resets to the type's default; the same value again is no change). */
const changedDerivingFields = (
  patch: Record<string, unknown>,
  current: Pick<TokenDraft, DerivingField> & { type: TokenType },
): DerivingField[] => {
  const rules = tokenTypeRules(current.type);
  const defaults: Pick<TokenDraft, DerivingField> = {
    mask: rules.defaultMask,
    search_indexes: [...rules.defaultSearchIndexes],
    fingerprint_expression: rules.defaultFingerprintExpression,
  };
  return DERIVING_PATCH_FIELDS.filter((field) => {
    const value = patch[field];
    if (value === undefined) return false;
    const next = value === null ? defaults[field] : value;
    return JSON.stringify(next) !== JSON.stringify(current[field]);
  });
};

/**
 * Whether a patch makes the token's derived values (mask, fingerprint, search values) change: only new data or a
 * changed expression does. Otherwise they are kept as stored and nothing is evaluated again, so an expression whose
 * output varies (a date, say) cannot be sampled by patching metadata over and over.
 */
export const patchRederives = (
  patch: Record<string, unknown>,
  current: Pick<TokenDraft, DerivingField> & { type: TokenType },
): boolean => patch.data !== undefined || changedDerivingFields(patch, current).length > 0;

/**
 * A PATCH of containers without new data must not move the token where any of the caller's rules would show it more
 * than the rule for the same operation did before (a mask rule cannot move a token under its own reveal rule, and a
 * reveal rule for one operation is no licence to raise another). Throws 403 naming `containers`.
 */
export const assertMoveRevealsNoMore = (
  rules: readonly AccessRule[],
  patch: Record<string, unknown>,
  before: readonly string[],
  after: readonly string[],
): void => {
  if (patch.data !== undefined || patch.containers === undefined) return;
  const was = insightInto(rules, before);
  const will = insightInto(rules, after);
  const raised = DATA_PERMISSIONS.find((permission) => revealsMore(will[permission], was[permission]));
  if (raised) {
    throw forbidden(
      `Moving this token to these containers without new data would let this application's ${raised} rule show it as ` +
        `${will[raised]} instead of ${was[raised]}; containers cannot be changed this way.`,
    );
  }
};

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Unicode-normalised and case-folded (upper then lower: `ß` and `SS`, `ı` and `I` fold alike), one character a slot. */
const folded = (text: string): string[] => [...text.normalize('NFKC').toUpperCase().toLowerCase()];

/** How often each character of `texts` that `counts` accepts occurs. */
const characterCounts = (texts: readonly string[], counts: (char: string) => boolean): Map<string, number> => {
  const found = new Map<string, number>();
  for (const text of texts) for (const char of folded(text)) if (counts(char)) found.set(char, (found.get(char) ?? 0) + 1);
  return found;
};

/** What a token's data is made of: the string itself, or every primitive leaf of JSON data (and its keys, if asked). */
const dataParts = (data: JsonValue, withKeys: boolean): string[] => {
  const parts: string[] = [];
  const pending: JsonValue[] = [data];
  while (pending.length > 0) {
    const value = pending.pop()!;
    if (value === null) continue;
    if (Array.isArray(value)) pending.push(...value);
    else if (typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (withKeys) parts.push(key);
        pending.push(item);
      }
    } else parts.push(String(value));
  }
  return parts;
};

/**
 * Whether an evaluated mask shows all of the data: every letter and digit of the data appears in the mask at least as
 * often, in any order and whatever is between them (`{{ data }}`, `{{ data | remove: '-' }}`, reversed, interleaved,
 * in another case, each value of JSON data in a row). For JSON, all the values shown is the whole data, and so are all
 * the keys and values together (data can sit in keys). Data with no letter or digit is judged by all its characters
 * but spaces.
 */
export const maskRevealsData = (masked: string, data: JsonValue): boolean =>
  showsAll(masked, dataParts(data, false)) || showsAll(masked, dataParts(data, true));

const showsAll = (masked: string, parts: readonly string[]): boolean => {
  const alphanumeric = parts.some((part) => folded(part).some((char) => LETTER_OR_DIGIT.test(char)));
  const counts = alphanumeric ? (char: string) => LETTER_OR_DIGIT.test(char) : (char: string) => char.trim() !== '';
  // Spent as the data's characters are met: the first one the mask does not hold answers.
  const available = characterCounts([masked], counts);
  let any = false;
  for (const part of parts) {
    for (const char of folded(part)) {
      if (!counts(char)) continue;
      any = true;
      const left = available.get(char) ?? 0;
      if (left === 0) return false;
      available.set(char, left - 1);
    }
  }
  return any;
};
