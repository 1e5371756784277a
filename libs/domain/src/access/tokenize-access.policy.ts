// What a tokenize body may create, and what the tokens a reactor's result makes may show the caller who invoked it:
// its args may have used tokens it does not see whole, and a token made or found for it must show it no more of them.
import { DomainError, fieldErrorsOf } from '../shared/errors';
import { BODY_PATH, bodyFieldPath } from '../tokenize/body-path';
import type { PlannedToken } from '../tokenize/tokenize.plan';
import { selectRule, type AccessRule, type AccessTransform } from './access-rules';
import { deduplicationRule } from './token-access.policy';
import { cappedTransform, revealsMoreThan, type UseInsight } from './use-insight';

/** A body that is one request has no path of its own: errors name it `body`. */
const where = (path: string): string => path || BODY_PATH;

/**
 * The token:create rule for each request of a tokenize body, asked before anything is created. Without one for some,
 * one 403 naming every such path (a request's `containers`, or the leaf itself).
 */
export const createRulesFor = (rules: readonly AccessRule[], requests: readonly PlannedToken[]): AccessRule[] => {
  const found = requests.map(({ request }) => selectRule(rules, request.draft.containers, 'token:create'));
  const uncovered = requests.filter((_, i) => found[i] === null);
  if (uncovered.length === 0) return found as AccessRule[];
  const message = "No access rule of this application grants token:create on this token's containers.";
  const errors = Object.fromEntries(uncovered.map(({ path, leaf }) => [leaf ? where(path) : bodyFieldPath(path, 'containers'), [message]]));
  const more = uncovered.length > 1 ? ` (and ${uncovered.length - 1} more, named in errors)` : '';
  throw new DomainError(
    'forbidden',
    `No access rule of this application grants token:create on the containers of the token at ${where(uncovered[0].path)}${more}.`,
    errors,
  );
};

/**
 * The caller's operations whose answers show a token's data by their rule's transform: read and search, deduplication
 * (create) and update responses. A token:use rule's transform shows nothing (the code gets the data whatever it is).
 */
export const SHOWING_PERMISSIONS = ['token:read', 'token:search', 'token:create', 'token:update'] as const;

/** The first of the caller's operations whose rule would show a token in `containers` more revealingly than `cap`, or null. */
export const mostRevealing = (rules: readonly AccessRule[], containers: readonly string[], cap: UseInsight): string | null =>
  SHOWING_PERMISSIONS.find((permission) => revealsMoreThan(selectRule(rules, containers, permission)?.transform ?? 'none', cap)) ?? null;

/**
 * A reactor's result made from tokens the caller sees at most as `cap` must not become a token the caller's rules show
 * more revealingly (a masked card tokenized again under a reveal rule): one 403 naming every such path, nothing created.
 */
export const assertShownNoMoreThan = (requests: readonly PlannedToken[], rules: readonly AccessRule[], cap: UseInsight): void => {
  const raised = requests.filter(({ request }) => mostRevealing(rules, request.draft.containers, cap) !== null);
  if (raised.length === 0) return;
  const message =
    "The reactor's args used tokens this application's token:read rules do not reveal; a token made from them may not be created where this application's rules would show it more.";
  const more = raised.length > 1 ? ` (and ${raised.length - 1} more, named in errors)` : '';
  throw new DomainError(
    'forbidden',
    `The token at ${where(raised[0].path)}${more} would be shown more revealingly than the tokens the reactor's args used.`,
    fieldErrorsOf(raised.map(({ path }) => [where(path), [message]] as const)),
  );
};

/** How a token is shown to a reactor's invoking caller: a transform, and whether only its id-level fields are. */
export interface CappedShowing {
  transform: AccessTransform;
  /** No data, no mask and no fingerprint either: the fingerprint is computed from the data. */
  idLevel: boolean;
}

/**
 * A token made or found for a reactor's invoking caller, whose args used tokens it sees at most as `cap`: shown under
 * its token:read rule's transform, capped; without a read rule, or under a cap of none, at id level only.
 */
export const cappedShowing = (rules: readonly AccessRule[], containers: readonly string[], cap: UseInsight): CappedShowing => {
  const read = selectRule(rules, containers, 'token:read');
  return { transform: cappedTransform(read?.transform ?? 'none', cap), idLevel: read === null || cap === 'none' };
};

/**
 * How deduplication on a reactor's behalf shows an existing match (found under both applications' token:create rules)
 * to the invoking caller; null when the match does not exist for it, and a new token is created as when nothing
 * matched. Without a cap (its args held no token: it supplied the data) it sees the match as its own POST /tokens
 * deduplication would, never more than the tokenizing application's rule does; with one, a match any of its rules
 * would show more revealingly than the cap does not exist either.
 */
export const onBehalfDuplicate = (
  tokenizerRules: readonly AccessRule[],
  invokerRules: readonly AccessRule[],
  cap: UseInsight | null,
  existing: { containers: readonly string[] },
): CappedShowing | null => {
  if (cap === null) {
    const own = deduplicationRule(invokerRules, existing);
    if (!own) return null;
    return { transform: cappedTransform(own.transform, deduplicationRule(tokenizerRules, existing)!.transform), idLevel: false };
  }
  if (mostRevealing(invokerRules, existing.containers, cap) !== null) return null;
  return cappedShowing(invokerRules, existing.containers, cap);
};
