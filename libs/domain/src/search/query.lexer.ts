// Splits query text into tokens that remember their source span, so every error can name a position.
import { QueryError } from './query.errors';

export type TokenKind =
  | 'lparen'
  | 'rparen'
  | 'and'
  | 'or'
  | 'not'
  | 'to'
  | 'field'
  | 'value'
  | 'range-open'
  | 'range-close'
  | 'end';

export interface Token {
  kind: TokenKind;
  /** The source text exactly as written, quotes and escapes included. */
  text: string;
  /** `field`: the name before the colon; `value`: the value with quotes and escapes removed; else `text`. */
  value: string;
  /** A value written in double quotes (so `"AND"` or `"/x/"` are plain values). */
  quoted: boolean;
  /** 0-based offset of the first character, and of the character after the last. */
  start: number;
  end: number;
}

// Operators are case sensitive: lower-case `and` stays an ordinary word.
const OPERATORS: Partial<Record<string, TokenKind>> = { AND: 'and', OR: 'or', NOT: 'not', TO: 'to' };

const DELIMITERS = new Set(['(', ')', '"', '[', ']', '{', '}']);

// Lucene syntax outside quotes that we refuse rather than silently treat as part of a value.
const UNSUPPORTED: Partial<Record<string, [problem: string, expected: string]>> = {
  '~': ['Unsupported fuzzy or proximity search "~"', 'an exact value (quote values that contain "~")'],
  '^': ['Unsupported boost "^"', 'an exact value (quote values that contain "^")'],
  '?': ['Unsupported wildcard "?"', 'an exact value (quote values that contain "?")'],
  '\\': ['Unsupported escape "\\"', 'a quoted value, inside which \\" and \\\\ are the only escapes'],
};

const isSpace = (c: string): boolean => /\s/.test(c);

export const lexQuery = (text: string): Token[] => new Lexer(text).run();

class Lexer {
  private readonly tokens: Token[] = [];
  private i = 0;
  // Inside `[ … ]` a colon belongs to a date-time and `-` to a value, not to a field or a NOT.
  private inRange = false;

  constructor(private readonly text: string) {}

  run(): Token[] {
    for (;;) {
      while (this.i < this.text.length && isSpace(this.text[this.i])) this.i++;
      if (this.i >= this.text.length) break;
      this.token();
    }
    this.push('end', this.i, this.i);
    return this.tokens;
  }

  private token(): void {
    const c = this.text[this.i];
    if (c === '(') return this.single('lparen');
    if (c === ')') return this.single('rparen');
    if (c === '[' || c === '{') return this.rangeOpen();
    if (c === ']' || c === '}') {
      this.inRange = false;
      return this.single('range-close');
    }
    if (c === '"') return this.quoted();
    if (!this.inRange && (c === '!' || c === '-')) return this.single('not');

    const start = this.i;
    const end = this.scanBare(start, !this.inRange);
    if (!this.inRange && this.text[end] === ':') {
      this.push('field', start, end + 1, this.text.slice(start, end));
      this.i = end + 1;
      return this.valueAfterField();
    }
    this.push(OPERATORS[this.text.slice(start, end)] ?? 'value', start, end);
    this.i = end;
  }

  // A value must touch its colon; whatever else follows is left for the parser to report.
  private valueAfterField(): void {
    const c = this.text[this.i];
    if (c === undefined || isSpace(c)) return;
    if (c === '"') return this.quoted();
    if (c === '[' || c === '{') return this.rangeOpen();
    if (DELIMITERS.has(c)) return;
    // Colons stay inside a value so that date-times and URLs need no quotes.
    const end = this.scanBare(this.i, false);
    this.push('value', this.i, end);
    this.i = end;
  }

  private rangeOpen(): void {
    this.inRange = true;
    this.single('range-open');
  }

  private scanBare(start: number, stopAtColon: boolean): number {
    let i = start;
    for (; i < this.text.length; i++) {
      const c = this.text[i];
      if (isSpace(c) || DELIMITERS.has(c) || (stopAtColon && c === ':')) break;
      const unsupported = UNSUPPORTED[c];
      if (unsupported) throw new QueryError(unsupported[0], i + 1, unsupported[1]);
    }
    return i;
  }

  private quoted(): void {
    const start = this.i;
    let value = '';
    let i = start + 1;
    for (;;) {
      const c = this.text[i];
      if (c === undefined) throw new QueryError('Unterminated quote', start + 1, 'a closing double quote');
      if (c === '"') break;
      if (c === '\\') {
        const escaped = this.text[i + 1];
        if (escaped === undefined) throw new QueryError('Unterminated quote', start + 1, 'a closing double quote');
        if (escaped !== '"' && escaped !== '\\') {
          throw new QueryError('Unsupported escape', i + 1, '\\" or \\\\ (the only escapes inside quotes)');
        }
        value += escaped;
        i += 2;
      } else {
        value += c;
        i += 1;
      }
    }
    // A `~2` or `^2` right after the closing quote is lexed next as a bare word, which rejects it.
    const end = i + 1;
    this.push('value', start, end, value, true);
    this.i = end;
  }

  private single(kind: TokenKind): void {
    this.push(kind, this.i, this.i + 1);
    this.i += 1;
  }

  private push(kind: TokenKind, start: number, end: number, value?: string, quoted = false): void {
    const text = this.text.slice(start, end);
    this.tokens.push({ kind, text, value: value ?? text, quoted, start, end });
  }
}
