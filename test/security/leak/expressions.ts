// Detokenization expressions as the leak property writes them (POST /detokenize bodies, reactor args), and what the
// API must put in their place, computed from the model with the API's own Liquid engine.
import fc from 'fast-check';
import { engine } from './model';

/** Filters tried after a token id; `json` selects inside object data, the others work on any string. */
export const FILTERS = ['slice: 0, 5', "json: '$.k'", 'reveal_last: 4', 'upcase'] as const;

/** The domain's one message for a token that does not exist and one no rule covers. */
export const TOKEN_NOT_FOUND = 'The detokenization expression refers to a token that was not found.';

export interface ExpressionChoice {
  ref: number;
  /** `{{ token: <id> }}` instead of `{{ <id> }}`. */
  prefixed: boolean;
  /** Index into FILTERS, or null for none. */
  filters: number | null;
  /** Inside a longer string, where the value's string form is spliced in. */
  embed: boolean;
}

/** An expression's form; filters and embedding come one time in `oneIn.filters` and `oneIn.embed`. */
export const expressionChoice = (oneIn: { filters: number; embed: number }): fc.Arbitrary<ExpressionChoice> =>
  fc.record({
    ref: fc.nat({ max: 31 }),
    prefixed: fc.boolean(),
    filters: fc.tuple(fc.nat({ max: oneIn.filters - 1 }), fc.nat({ max: FILTERS.length - 1 })).map(([n, filter]) => (n === 0 ? filter : null)),
    embed: fc.nat({ max: oneIn.embed - 1 }).map((n) => n === 0),
  });

/** The string that holds the expression: the expression alone, or inside a longer text. */
export const expressionText = (id: string, c: Pick<ExpressionChoice, 'prefixed' | 'filters' | 'embed'>): string => {
  const filters = c.filters === null ? '' : ` | ${FILTERS[c.filters]}`;
  const expression = `{{ ${c.prefixed ? 'token: ' : ''}${id}${filters} }}`;
  return c.embed ? `on file: ${expression} (end)` : expression;
};

/** The string form spliced into a longer string: a string as it is, null as nothing, anything else as JSON. */
export const stringForm = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : (JSON.stringify(value) ?? '');

/** What replaces the expression's string: the shown value through the filters (an Error when they fail). */
export const rendered = (shown: unknown, c: Pick<ExpressionChoice, 'filters' | 'embed'>): unknown => {
  let value: unknown = shown;
  if (c.filters !== null) {
    try {
      value = engine.evaluate(`{{ data | ${FILTERS[c.filters]} }}`, shown);
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }
  return c.embed ? `on file: ${stringForm(value)} (end)` : value;
};

/** Where values go in a body, and the path the API names each by (body-path syntax). */
export type BodyShape = 'string' | 'object' | 'array' | 'nested';

export const placeInBody = (shape: BodyShape, items: readonly unknown[]): { body: unknown; paths: string[] } => {
  switch (shape) {
    case 'string':
      return { body: items[0], paths: ['body'] };
    case 'object':
      return { body: Object.fromEntries(items.map((item, i) => [`v${i}`, item])), paths: items.map((_, i) => `v${i}`) };
    case 'array':
      return { body: [...items], paths: items.map((_, i) => `[${i}]`) };
    case 'nested': {
      // In body order (keys, then indexes): outer[0].x, deep.list[0], y.
      const [a, b, c] = items;
      const body: Record<string, unknown> = { outer: [{ x: a }] };
      const paths = ['outer[0].x'];
      if (items.length > 1) {
        body.deep = { list: [b] };
        paths.push('deep.list[0]');
      }
      if (items.length > 2) {
        body.y = c;
        paths.push('y');
      }
      return { body, paths };
    }
  }
};
