// The access policy of single-token operations: the one owner of every rule that decides what a caller may see of a
// token or learn by writing to it (what a write may reveal). Reads, searches, creates (deduplication), updates and
// deletes ask here; a handler never picks a rule itself.
import type { QueryNode } from '../search/query.ast';
import { forbidden, notFound } from '../shared/errors';
import { isTokenPermission, PERMISSIONS } from '../permissions/permission-catalogue';
import { allowedContainers, selectRule, type AccessRule } from './access-rules';
import { revealsMoreThan, type UseInsight } from './use-insight';
import type { TokenDraft } from '../tokens/token-prepare';
import { tokenTypeRules, type TokenType } from '../tokens/token-types';

/**
 * The permissions under which a caller can learn something of a token's data: every token permission but
 * `token:delete`, which shows nothing. (`token:create` shows an existing token through deduplication, `token:update`
 * in its response, `token:use` hands the data to reactor code.)
 */
const DATA_PERMISSIONS = PERMISSIONS.map((p) => p.type).filter((type) => isTokenPermission(type) && type !== 'token:delete');

/**
 * The rule a caller acts under on an existing token (a read, an update, a delete, a search result). A token no rule
 * covers does not exist for the caller: it is answered as a missing one is (404), so neither tells the other apart.
 */
export const ruleFor = (rules: readonly AccessRule[], token: { containers: readonly string[] } | null, permission: string): AccessRule => {
  const rule = token && selectRule(rules, token.containers, permission);
  if (!rule) throw notFound('Token');
  return rule;
};

/** Why a token may not be put in these containers: the caller knows the containers it asked for, so this is a 403. */
const PLACING_REFUSED = {
  'token:create': "No access rule of this application grants token:create on the token's containers.",
  'token:update': "No access rule of this application grants token:update on the token's new containers.",
} as const;

/**
 * The rule a caller puts a token in `containers` under: token:create for a new token, token:update for where an update
 * leaves it (which also shows the answer). Without one, 403.
 */
export const ruleToPlace = (rules: readonly AccessRule[], containers: readonly string[], permission: keyof typeof PLACING_REFUSED): AccessRule => {
  const rule = selectRule(rules, containers, permission);
  if (!rule) throw forbidden(PLACING_REFUSED[permission]);
  return rule;
};

/**
 * What each of the caller's operations shows of a token in these containers: per permission, the transform of the rule
 * that applies (`none` where no rule does). A write may never raise any of them (container moves).
 */
export const insightInto = (rules: readonly AccessRule[], containers: readonly string[]): Record<string, UseInsight> =>
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
  const raised = DATA_PERMISSIONS.find((permission) => revealsMoreThan(will[permission], was[permission]));
  if (raised) {
    throw forbidden(
      `Moving this token to these containers without new data would let this application's ${raised} rule show it as ` +
        `${will[raised]} instead of ${was[raised]}; containers cannot be changed this way.`,
    );
  }
};
