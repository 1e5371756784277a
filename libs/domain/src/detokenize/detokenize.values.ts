// What each detokenization expression becomes: the token's data as the caller's rule shows it, through its filters.
import { FieldErrorCollector, forbidden } from '../shared/errors';
import type { ExpressionEngine } from '../tokens/expression-engine';
import type { JsonValue } from '../tokens/token-types';
import { runSteps, type Steps } from '../shared/steps';
import { filterExpression, type DetokenizePlan } from './detokenize.plan';

/**
 * A token as the rule that applies to the caller shows it (the application layer picks the rule and opens what it
 * needs). For reactor arguments (`token:use`) the data is used whatever the transform: pass `reveal` there.
 */
export type TokenView =
  | { transform: 'reveal'; data: JsonValue }
  /** `masked` is the evaluated mask, null when the token has none. */
  | { transform: 'mask'; masked: string | null }
  | { transform: 'redact' };

/** One message for a token that does not exist and one that no rule covers, so the answer tells them apart for nobody. */
export const TOKEN_NOT_FOUND_MESSAGE = 'The detokenization expression refers to a token that was not found.';

/** What a view shows of the data: the data, the mask, or nothing (redact, or mask on a token without one). */
export const shownValue = (view: TokenView): JsonValue | undefined => {
  switch (view.transform) {
    case 'reveal':
      return view.data;
    case 'mask':
      return view.masked ?? undefined;
    case 'redact':
      return undefined;
  }
};

/**
 * The value of one expression: without filters the shown value itself (any JSON type); with filters the string the
 * engine renders for `{{ data | <filters> }}` with the value as `data`. Throws the engine's error (data-free by its
 * contract) when the filters fail.
 */
export const detokenizedValue = (value: JsonValue, filters: string | null, engine: ExpressionEngine): JsonValue =>
  filters === null ? value : engine.evaluate(filterExpression(filters), value);

/**
 * Renders a planned body. `views` holds the tokens by lower-cased id (plan.tokenIds); an id it lacks is a token that
 * does not exist or that no rule covers. Throws, in this order: one 400 naming every path whose token is missing; a
 * 403 naming the first path whose token the caller's rule does not show (redact, or mask without a mask); one 400
 * naming every path whose filters failed. All at once: see detokenizeSteps.
 */
export const detokenize = (plan: DetokenizePlan, views: ReadonlyMap<string, TokenView>, engine: ExpressionEngine): unknown =>
  runSteps(detokenizeSteps(plan, views, engine));

/** detokenize, yielding after each expression whose filters were evaluated (steps.ts): what a request handler drives. */
export function* detokenizeSteps(
  plan: DetokenizePlan,
  views: ReadonlyMap<string, TokenView>,
  engine: ExpressionEngine,
): Steps<unknown> {
  const missing = new FieldErrorCollector();
  const reported = new Set<string>();
  for (const { path, tokenId } of plan.expressions) {
    if (views.has(tokenId) || reported.has(path)) continue;
    reported.add(path);
    missing.add(path, TOKEN_NOT_FOUND_MESSAGE);
  }
  missing.throwIfAny();
  const shown = plan.expressions.map(({ tokenId }) => shownValue(views.get(tokenId)!));
  const hidden = shown.indexOf(undefined);
  if (hidden >= 0) {
    throw forbidden(`The access rule that applies to the token at ${plan.expressions[hidden].path} does not show its data.`);
  }
  const failed = new FieldErrorCollector();
  const values: JsonValue[] = [];
  for (const [i, { path, filters }] of plan.expressions.entries()) {
    try {
      values.push(detokenizedValue(shown[i]!, filters, engine));
    } catch (error) {
      failed.add(path, `The filters of a detokenization expression failed: ${error instanceof Error ? error.message : 'unknown error'}`);
      values.push(null);
    }
    if (filters !== null) yield;
  }
  failed.throwIfAny();
  return plan.render(values);
}
