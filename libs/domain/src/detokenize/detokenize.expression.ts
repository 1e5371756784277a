// Detokenization expressions inside one string: `{{ <token id> }}` or
// `{{ token: <token id> }}`, optionally followed by Liquid filters (`{{ <id> | json: '$.number' | reveal_last: 4 }}`).
//
// Which `{{ … }}` is an expression: one whose content, after leading blanks, starts with `token` and `:` (any case), or
// with eight hex digits and `-` (the start of a UUID). Such a one must then be a valid expression, or the string is a
// 400: a mistyped id is reported, never passed on as literal text. Any other `{{` (`{{ name }}`, `{{-`, `{{ 42 }}`) is
// ordinary text and stays as it is. Filters are names with optional arguments, and an argument is a number or a
// quoted string without `{`, `}` or `\`: the chain is then plain Liquid that cannot end its output tag early, so it
// can be evaluated as `{{ data | <filters> }}`. Messages give positions (1-based characters), never the string's text.
import { isUuid } from '../shared/uuid';

/** The longest filter chain an expression may carry: filters are a few names and short arguments. */
export const MAX_FILTERS_LENGTH = 1_000;

export interface FoundExpression {
  /** Lower-cased. */
  tokenId: string;
  /** The filter chain after the first `|`, trimmed (`json: '$.number' | reveal_last: 4`), or null. */
  filters: string | null;
  /** Index of the opening `{{`. */
  start: number;
  /** Index just past the closing `}}`. */
  end: number;
}

/** A string holds an expression that does not parse; the message says where and what was expected. */
export class ExpressionSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExpressionSyntaxError';
  }
}

const ATTEMPT = /\s*(?:token\s*:|[0-9a-f]{8}-)/iy;
const TOKEN_PREFIX = /token\s*:/iy;
const BLANKS = /\s*/y;
const FILTER_NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?\d+(?:\.\d+)?/y;
const UUID_LENGTH = 36;
const FORBIDDEN_IN_ARGUMENT = /[{}\\]/;

/** Every expression in `text`, in order. Throws ExpressionSyntaxError for one that looks like an expression but is not. */
export const findExpressions = (text: string): FoundExpression[] => {
  const found: FoundExpression[] = [];
  let from = 0;
  for (;;) {
    const start = text.indexOf('{{', from);
    if (start < 0) return found;
    if (!matchesAt(ATTEMPT, text, start + 2)) {
      // One character on, so the second brace of `{{{ <id> }}` can open an expression.
      from = start + 1;
      continue;
    }
    const expression = new ExpressionReader(text, start).read();
    found.push(expression);
    from = expression.end;
  }
};

const matchesAt = (pattern: RegExp, text: string, at: number): number | null => {
  pattern.lastIndex = at;
  return pattern.test(text) ? pattern.lastIndex : null;
};

/** Reads one expression from its `{{`; a small cursor over the string. */
class ExpressionReader {
  private at: number;

  constructor(
    private readonly text: string,
    private readonly start: number,
  ) {
    this.at = start + 2;
  }

  read(): FoundExpression {
    this.skipBlanks();
    this.at = matchesAt(TOKEN_PREFIX, this.text, this.at) ?? this.at;
    this.skipBlanks();
    const id = this.text.slice(this.at, this.at + UUID_LENGTH);
    if (!isUuid(id)) this.fail('expects a token id (a UUID)');
    this.at += UUID_LENGTH;
    if (!/^(\s|\||\}|$)/.test(this.text.charAt(this.at))) this.fail('expects | or }} after the token id');
    this.skipBlanks();
    let filters: string | null = null;
    if (this.text.startsWith('|', this.at)) {
      this.at++;
      const from = this.at;
      this.readFilters();
      filters = this.text.slice(from, this.at).trim();
      if (filters.length > MAX_FILTERS_LENGTH) {
        this.fail(`has filters longer than ${MAX_FILTERS_LENGTH.toLocaleString('en-US')} characters`);
      }
    }
    if (!this.text.startsWith('}}', this.at)) this.fail('expects }}');
    return { tokenId: id.toLowerCase(), filters, start: this.start, end: this.at + 2 };
  }

  /** `name[: arg, …]` separated by `|`; stops before the closing `}}` (blanks before it are skipped). */
  private readFilters(): void {
    for (;;) {
      this.skipBlanks();
      const name = matchesAt(FILTER_NAME, this.text, this.at);
      if (name === null) this.fail('expects a filter name');
      this.at = name!;
      this.skipBlanks();
      if (this.text.startsWith(':', this.at)) {
        this.at++;
        this.readArgument();
        this.skipBlanks();
        while (this.text.startsWith(',', this.at)) {
          this.at++;
          this.readArgument();
          this.skipBlanks();
        }
      }
      if (!this.text.startsWith('|', this.at)) return;
      this.at++;
    }
  }

  private readArgument(): void {
    this.skipBlanks();
    const quote = this.text.charAt(this.at);
    if (quote === "'" || quote === '"') {
      const close = this.text.indexOf(quote, this.at + 1);
      if (close < 0) this.fail('has a quoted filter argument that is not closed');
      if (FORBIDDEN_IN_ARGUMENT.test(this.text.slice(this.at + 1, close))) {
        this.fail('has a filter argument with {, } or \\, which are not allowed');
      }
      this.at = close + 1;
      return;
    }
    const number = matchesAt(NUMBER, this.text, this.at);
    if (number === null) this.fail('expects a quoted string or a number as filter argument');
    this.at = number!;
  }

  private skipBlanks(): void {
    this.at = matchesAt(BLANKS, this.text, this.at)!;
  }

  private fail(problem: string): never {
    throw new ExpressionSyntaxError(
      `The detokenization expression at character ${this.start + 1} ${problem} (at character ${this.at + 1}).`,
    );
  }
}
