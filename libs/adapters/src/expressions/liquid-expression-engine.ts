// ExpressionEngine on liquidjs: unknown filters fail at parse time, parsed templates are cached, work is bounded,
// templates cannot reach the file system, and no error message carries token data.
import { Context, Drop, Liquid, LiquidError, type Template } from 'liquidjs';
import { TOKEN_TYPES, tokenTypeRules, type ExpressionEngine } from '@vault/domain';
import { CUSTOM_FILTERS, FilterArgumentError } from './liquid-filters';
import { RenderBudget, RenderBudgetSpent } from './render-budget';

export interface LiquidExpressionEngineOptions {
  /** Parsed templates kept; the least recently used one is dropped beyond this. */
  cacheSize?: number;
  /**
   * CPU time budget, in milliseconds, of all the evaluations one synchronous stretch of work makes (a token's mask,
   * fingerprint and search indexes are evaluated in one): what keeps a request from holding the event loop.
   */
  renderLimitMs?: number;
  /** liquidjs allocation budget of one evaluation (range sizes, string building). */
  memoryLimit?: number;
  /** Evaluate the token types' own expressions natively (NATIVE_BUILT_INS); false runs them through Liquid too. */
  nativeBuiltIns?: boolean;
}

/** An expression did not parse or failed to render. The message names the expression's problem, never the data. */
export class ExpressionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionError';
  }
}

/** The default mask, fingerprint expression and search indexes of every token type. */
const BUILT_IN_EXPRESSIONS: ReadonlySet<string> = new Set(
  TOKEN_TYPES.flatMap((type) => {
    const rules = tokenTypeRules(type);
    return [rules.defaultFingerprintExpression, ...(rules.defaultMask ? [rules.defaultMask] : []), ...rules.defaultSearchIndexes];
  }),
);

/**
 * The token types' own expressions, as the functions Liquid would run for them: the same filters, without parsing the
 * scope or rendering a template (about 2% of a create's CPU). Used where the data is a string (card numbers, SSNs,
 * EINs), and for `stringify` on any data; anything else goes through Liquid. The spec compares both on every one.
 */
export const NATIVE_BUILT_INS: ReadonlyMap<string, { anyData: boolean; render(data: unknown): string }> = new Map([
  ['{{ data }}', { anyData: false, render: (data: unknown) => data as string }],
  ["{{ data | remove: '-' }}", { anyData: false, render: (data: unknown) => (data as string).split('-').join('') }],
  ['{{ data | last4 }}', { anyData: false, render: (data: unknown) => renderValue(CUSTOM_FILTERS.last4(data)) }],
  ['{{ data | reveal_last: 4 }}', { anyData: false, render: (data: unknown) => renderValue(CUSTOM_FILTERS.reveal_last(data, 4)) }],
  ['{{ data | stringify }}', { anyData: true, render: (data: unknown) => renderValue(CUSTOM_FILTERS.stringify(data)) }],
]);

/** Tags that load other templates: a token expression has no business reading files. */
const FILE_TAGS = ['include', 'render', 'layout', 'block'];

/**
 * liquidjs checks its render budget only between template nodes, never inside a filter. The `*_exp` filters evaluate
 * an expression per list item inside one filter call (quadratic on a long list of long strings), so they are not
 * offered; `sample` would make an expression's output change from one evaluation to the next.
 */
const UNSAFE_FILTERS = ['where_exp', 'reject_exp', 'group_by_exp', 'has_exp', 'find_exp', 'find_index_exp', 'sample'];
/**
 * Standard filters that look into each item (`where`, `sort`, `map`, `sum` …) get lists of at most this many items, so
 * a chain of them in one output tag stays small. Those that only copy or count (native array work) take any list.
 */
const MAX_FILTER_LIST_LENGTH = 1_000;
const LIST_COPYING_FILTERS = new Set(['size', 'first', 'last', 'join', 'slice', 'reverse', 'concat', 'compact', 'uniq', 'push', 'pop', 'shift', 'unshift']);

export class LiquidExpressionEngine implements ExpressionEngine {
  private readonly liquid: Liquid;
  private readonly cache = new Map<string, Template[]>();
  private readonly cacheSize: number;
  private readonly renderLimitMs: number;
  private readonly memoryLimit: number;
  private readonly nativeBuiltIns: boolean;
  /** The current synchronous stretch's budget; cleared by a microtask once the stretch is over. */
  private stretch: RenderBudget | null = null;

  constructor(options: LiquidExpressionEngineOptions = {}) {
    this.cacheSize = options.cacheSize ?? 1_000;
    this.renderLimitMs = options.renderLimitMs ?? 30;
    this.memoryLimit = options.memoryLimit ?? 10_000_000;
    this.nativeBuiltIns = options.nativeBuiltIns ?? true;
    this.liquid = new Liquid({
      strictFilters: true,
      ownPropertyOnly: true,
      templates: {},
      parseLimit: 100_000,
      // Lists and objects render as JSON, so a list is recognisable as several values and never as "a,b" or
      // "[object Object]"; nothing (nil, a missing field) renders as ''.
      outputEscape: renderValue,
    });
    for (const tag of FILE_TAGS) delete this.liquid.tags[tag];
    for (const name of UNSAFE_FILTERS) this.liquid.unregisterFilter(name);
    for (const [name, filter] of Object.entries(this.liquid.filters)) {
      if (typeof filter !== 'function' || LIST_COPYING_FILTERS.has(name)) continue;
      this.liquid.registerFilter(name, function (this: ThisParameterType<typeof filter>, input: unknown, ...args: unknown[]) {
        if (Array.isArray(input) && input.length > MAX_FILTER_LIST_LENGTH) {
          throw new FilterArgumentError(`${name}: lists of more than ${MAX_FILTER_LIST_LENGTH.toLocaleString('en-US')} items are not filtered.`);
        }
        return filter.call(this, input, ...args);
      });
    }
    // `raw` would bypass outputEscape, and with it the JSON rendering above.
    this.liquid.unregisterFilter('raw');
    for (const [name, filter] of Object.entries(CUSTOM_FILTERS)) this.liquid.registerFilter(name, filter);
  }

  validate(expression: string): string | null {
    try {
      this.parse(expression);
      return null;
    } catch (error) {
      return parseFailure(error);
    }
  }

  evaluate(expression: string, data: unknown): string {
    const native = this.nativeBuiltIns ? NATIVE_BUILT_INS.get(expression) : undefined;
    if (native && (native.anyData || typeof data === 'string')) {
      try {
        return native.render(data);
      } catch (error) {
        throw new ExpressionError(renderFailure(error));
      }
    }
    let template: Template[];
    try {
      template = this.parse(expression);
    } catch (error) {
      throw new ExpressionError(`The expression does not parse: ${parseFailure(error)}`);
    }
    // The token types' own expressions are linear in the data (at most 64 KiB) and get a budget of their own: a caller's
    // slow expression must not make them fail too. Only expressions a caller wrote spend the stretch's shared budget.
    const budget = BUILT_IN_EXPRESSIONS.has(expression) ? new RenderBudget(this.renderLimitMs) : this.stretchBudget();
    if (budget.spent()) throw new ExpressionError('The expressions exceeded their shared time limit.');
    // liquidjs's own render limit reads the wall clock: the context takes our budget in its place (liquidjs only ever
    // calls its `check`).
    const context = new Context({ data }, this.liquid.options, { sync: true, memoryLimit: this.memoryLimit }, {
      renderLimit: budget as unknown as Context['renderLimit'],
      liquid: this.liquid,
    });
    try {
      return String(this.liquid.renderSync(template, context));
    } catch (error) {
      throw new ExpressionError(renderFailure(error));
    }
  }

  /**
   * Evaluations are synchronous, so all of one request's happen before the next microtask: they share one budget,
   * which starts with the first of them and ends when the stretch does.
   */
  private stretchBudget(): RenderBudget {
    if (this.stretch === null) {
      this.stretch = new RenderBudget(this.renderLimitMs);
      queueMicrotask(() => (this.stretch = null));
    }
    return this.stretch;
  }

  private parse(expression: string): Template[] {
    const cached = this.cache.get(expression);
    if (cached) {
      // Re-inserting moves the entry to the end of the Map's order: the first key is the least recently used.
      this.cache.delete(expression);
      this.cache.set(expression, cached);
      return cached;
    }
    const template = this.liquid.parse(expression);
    this.cache.set(expression, template);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    return template;
  }
}

const renderValue = (value: unknown): string => {
  // Liquid's `nil`/`null`, `empty` and `blank` literals are drops (objects), which JSON would render as `{}`: they
  // render as what they stand for (nothing), so a search index of them is empty (400) and a mask shows nothing.
  if (value instanceof Drop) value = value.valueOf();
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
};

/** Parse errors describe the expression (not data), with its line and column. */
const parseFailure = (error: unknown): string =>
  LiquidError.is(error) || error instanceof FilterArgumentError ? error.message : 'the expression is not valid Liquid';

const LIMIT_EXCEEDED = /^(memory alloc|parse length) limit exceeded/;

/**
 * Render errors can come from anywhere, including JavaScript errors that quote values, so only messages we know to
 * be free of data pass: our filters' argument errors and liquidjs's limit errors. The rest get a fixed message.
 */
const renderFailure = (error: unknown): string => {
  const original = LiquidError.is(error) && error.originalError ? error.originalError : error;
  if (original instanceof FilterArgumentError) return original.message;
  // liquidjs lets it through bare when the budget runs out between top-level nodes, and wraps it inside a tag.
  if (original instanceof RenderBudgetSpent) return 'The expression exceeded the template render limit.';
  const limit = LiquidError.is(error) ? LIMIT_EXCEEDED.exec(error.message) : null;
  if (limit) return `The expression exceeded the ${limit[1]} limit.`;
  return 'The expression failed while rendering.';
};
