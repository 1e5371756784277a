// POST /detokenize: the detokenization expressions a body holds, and how their
// values go back in. Also step 2 of a reactor invocation, on its `args`.
import { describeParseProblem } from '../tokens/token-fields.validate';
import { FieldErrorCollector, validationError } from '../shared/errors';
import { isJsonObject } from '../shared/json-shape';
import type { ExpressionEngine } from '../tokens/expression-engine';
import { BODY_PATH, bodyIndexPath, bodyKeyPath, countBodyValue, MAX_BODY_DEPTH } from '../tokenize/body-path';
import { ExpressionSyntaxError, findExpressions } from './detokenize.expression';

/** Expressions one body may hold, counting each one inside a longer string. */
export const MAX_DETOKENIZE_EXPRESSIONS = 100;

export interface DetokenizeExpression {
  /** The string's place in the body (body-path.ts syntax); `body` when the body is the string itself. */
  path: string;
  /** Lower-cased UUID. */
  tokenId: string;
  /** The Liquid filter chain after the id (`json: '$.number' | reveal_last: 4`), or null. */
  filters: string | null;
  /**
   * True when the string is exactly this expression: its value replaces the string and keeps its JSON type. False
   * when it sits inside a longer string, where its string form is spliced in.
   */
  whole: boolean;
}

export interface DetokenizePlan {
  /** In body order (depth first, arrays by index, objects by key order, left to right in a string). */
  expressions: DetokenizeExpression[];
  /** The distinct token ids, in first-use order: the tokens to load. */
  tokenIds: string[];
  /**
   * The body with each expression replaced by `values[i]` (same order as `expressions`): as it is where the expression
   * is the whole string, as its string form inside a longer one (a string as it is, anything else as JSON). Everything
   * else is kept. Throws when `values` does not have one value per expression (a caller bug).
   */
  render(values: readonly unknown[]): unknown;
}

export interface PlanDetokenizeOptions {
  /** When given, every filter chain is parsed up front, so an unknown filter is a 400 before any token is read. */
  engine?: ExpressionEngine;
}

/**
 * Finds the expressions of any JSON body. Throws one DomainError 'validation': on the path of every string holding an
 * expression that does not parse (or whose filters the engine rejects), on the first container nested deeper than 64
 * levels, or on `body` beyond 100 expressions.
 */
export const planDetokenize = (body: unknown, options: PlanDetokenizeOptions = {}): DetokenizePlan => {
  const expressions: DetokenizeExpression[] = [];
  const problems = new FieldErrorCollector();
  const shape = shapeOf(body, '', 1, { expressions, problems, values: 0 });
  problems.throwIfAny();
  if (options.engine) checkFilters(expressions, options.engine);
  return {
    expressions,
    tokenIds: [...new Set(expressions.map((expression) => expression.tokenId))],
    render: (values) => {
      if (values.length !== expressions.length) {
        throw new Error(`render needs ${expressions.length} values, got ${values.length}.`);
      }
      return rendered(shape, values);
    },
  };
};

/** The string form of a value spliced into a longer string: a string as it is, nothing as '', the rest as JSON. */
export const stringForm = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
};

interface Walk {
  expressions: DetokenizeExpression[];
  problems: FieldErrorCollector;
  values: number;
}

/** The body's structure; a part without expressions is kept as the body's own value. */
type Shape =
  | { kind: 'kept'; value: unknown }
  | { kind: 'whole'; index: number }
  | { kind: 'text'; parts: Array<string | { index: number }> }
  | { kind: 'array'; items: Shape[] }
  | { kind: 'object'; entries: Array<[string, Shape]> };

const shapeOf = (value: unknown, path: string, depth: number, walk: Walk): Shape => {
  countBodyValue(walk);
  if (typeof value === 'string') return textShape(value, path || BODY_PATH, walk);
  if (value === null || typeof value !== 'object') return { kind: 'kept', value };
  if (depth > MAX_BODY_DEPTH) {
    throw validationError({ [path || BODY_PATH]: [`The body must not nest deeper than ${MAX_BODY_DEPTH} levels.`] });
  }
  if (Array.isArray(value)) {
    const items = value.map((item, i) => shapeOf(item, bodyIndexPath(path, i), depth + 1, walk));
    return items.every(isKept) ? { kind: 'kept', value } : { kind: 'array', items };
  }
  if (!isJsonObject(value)) return { kind: 'kept', value };
  const entries = Object.keys(value).map((key): [string, Shape] => [key, shapeOf(value[key], bodyKeyPath(path, key), depth + 1, walk)]);
  return entries.every(([, item]) => isKept(item)) ? { kind: 'kept', value } : { kind: 'object', entries };
};

const isKept = (shape: Shape): boolean => shape.kind === 'kept';

const textShape = (text: string, path: string, walk: Walk): Shape => {
  let found;
  try {
    found = findExpressions(text);
  } catch (error) {
    if (!(error instanceof ExpressionSyntaxError)) throw error;
    walk.problems.add(path, error.message);
    return { kind: 'kept', value: text };
  }
  if (found.length === 0) return { kind: 'kept', value: text };
  if (walk.expressions.length + found.length > MAX_DETOKENIZE_EXPRESSIONS) {
    throw validationError({ [BODY_PATH]: [`A body may hold at most ${MAX_DETOKENIZE_EXPRESSIONS} detokenization expressions.`] });
  }
  const first = walk.expressions.length;
  const whole = found.length === 1 && found[0].start === 0 && found[0].end === text.length;
  for (const { tokenId, filters } of found) walk.expressions.push({ path, tokenId, filters, whole });
  if (whole) return { kind: 'whole', index: first };
  const parts: Array<string | { index: number }> = [];
  let from = 0;
  found.forEach((expression, i) => {
    parts.push(text.slice(from, expression.start), { index: first + i });
    from = expression.end;
  });
  parts.push(text.slice(from));
  return { kind: 'text', parts };
};

const rendered = (shape: Shape, values: readonly unknown[]): unknown => {
  switch (shape.kind) {
    case 'kept':
      return shape.value;
    case 'whole':
      return values[shape.index];
    case 'text':
      return shape.parts.map((part) => (typeof part === 'string' ? part : stringForm(values[part.index]))).join('');
    case 'array':
      return shape.items.map((item) => rendered(item, values));
    case 'object':
      // fromEntries defines properties, so a `__proto__` key stays a key instead of setting the prototype.
      return Object.fromEntries(shape.entries.map(([key, item]) => [key, rendered(item, values)]));
  }
};

const checkFilters = (expressions: readonly DetokenizeExpression[], engine: ExpressionEngine): void => {
  const problems = new FieldErrorCollector();
  for (const { path, filters } of expressions) {
    const problem = filters === null ? null : engine.validate(filterExpression(filters));
    // The problem's kind and position only: Liquid's own message quotes what the caller wrote.
    if (problem !== null) problems.add(path, `The filters of a detokenization expression do not parse: ${describeParseProblem(problem)}`);
  }
  problems.throwIfAny();
};

/** The Liquid expression that applies `filters` to the value bound as `data`. */
export const filterExpression = (filters: string): string => `{{ data | ${filters} }}`;
