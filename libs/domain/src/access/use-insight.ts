// What a detokenization hands over, and reactor args (`token:use`): the code sees the data, but what comes back to the
// caller must show no more of it than the caller's own token:read rule does. So a caller without `reveal` may only hand
// a token over whole (no filters, not spliced into a longer string), and tokens made from the result are capped at the
// least revealing read rule over the tokens the args used.
import { DomainError, fieldErrorsOf } from '../shared/errors';
import { selectRule, type AccessRule, type AccessTransform } from './access-rules';
import type { DetokenizePlan } from '../detokenize/detokenize.plan';

/** How much of a token's data a caller's rule shows: no rule < redact < mask < reveal. */
export type UseInsight = AccessTransform | 'none';

const RANK: Record<UseInsight, number> = { none: 0, redact: 1, mask: 2, reveal: 3 };

export const revealsMoreThan = (a: UseInsight, b: UseInsight): boolean => RANK[a] > RANK[b];

/** The least revealing of `insights`; null when there are none (args without token expressions: no cap). */
export const leastInsight = (insights: Iterable<UseInsight>): UseInsight | null => {
  let least: UseInsight | null = null;
  for (const insight of insights) if (least === null || RANK[insight] < RANK[least]) least = insight;
  return least;
};

/** The transform a token is shown with: the rule's, at most `cap`; no rule (or a cap of none) shows the redact view. */
export const cappedTransform = (rule: UseInsight, cap: UseInsight): AccessTransform => {
  const shown = revealsMoreThan(rule, cap) ? cap : rule;
  return shown === 'none' ? 'redact' : shown;
};

/** How a detokenization hands a token over, and what the caller's token:read rule shows of it (`none` without one). */
export interface DetokenizeAccess {
  shown: AccessTransform;
  read: UseInsight;
}

/**
 * How POST /detokenize (`token:read`) or a reactor's args (`token:use`) hand a token in `containers` over: null when no
 * rule for `permission` covers it (it is then as missing as an unknown token), else under the rule's transform, or whole
 * for a use (the data goes to the code, never straight back to the caller). `read` caps what may flow back.
 */
export const detokenizeAccess = (
  rules: readonly AccessRule[],
  containers: readonly string[],
  permission: 'token:read' | 'token:use',
): DetokenizeAccess | null => {
  const rule = selectRule(rules, containers, permission);
  if (!rule) return null;
  return {
    shown: permission === 'token:use' ? 'reveal' : rule.transform,
    read: selectRule(rules, containers, 'token:read')?.transform ?? 'none',
  };
};

export const SHAPING_NEEDS_REVEAL_MESSAGE =
  "Shaping a token's data (filters, or an expression inside a longer string) needs a token:read rule that reveals the token; pass the expression alone, as the whole string, without filters.";

export const FILTERS_NEED_REVEAL_MESSAGE =
  "Filters on a token's data need a token:read rule that reveals the token; pass the expression without filters.";

/**
 * A filter chain or an expression spliced into a longer string chooses which part of the data lands where the code may
 * copy it into `raw`: allowed only on tokens the caller's token:read rule reveals. With `splices: 'whole'` (a proxy's
 * request, which no code of the vault's sees once detokenized) an expression spliced into a longer string puts the whole
 * value there, which what flows back finds as it finds a value alone: only filters are shaping then. `readInsight` gives that rule's
 * transform for a token id (`none` without one); ids it does not know (missing tokens) are left to the 400 that follows.
 * Throws one 403 naming every such path. Messages never hold the string or the data.
 */
export const assertShapingRevealed = (
  plan: DetokenizePlan,
  readInsight: ReadonlyMap<string, UseInsight>,
  options: { splices: 'shaping' | 'whole' } = { splices: 'shaping' },
): void => {
  const shapes = ({ filters, whole }: DetokenizePlan['expressions'][number]) => filters !== null || (!whole && options.splices === 'shaping');
  const shaped = plan.expressions.filter(
    (expression) => shapes(expression) && readInsight.has(expression.tokenId) && readInsight.get(expression.tokenId) !== 'reveal',
  );
  if (shaped.length === 0) return;
  const reason = options.splices === 'whole' ? FILTERS_NEED_REVEAL_MESSAGE : SHAPING_NEEDS_REVEAL_MESSAGE;
  const paths = [...new Set(shaped.map(({ path }) => path))];
  const more = paths.length > 1 ? ` (and ${paths.length - 1} more, named in errors)` : '';
  throw new DomainError(
    'forbidden',
    `The detokenization expression at ${paths[0]}${more} shapes a token's data, which needs a reveal rule for token:read on it.`,
    fieldErrorsOf(paths.map((path) => [path, [reason]] as const)),
  );
};
