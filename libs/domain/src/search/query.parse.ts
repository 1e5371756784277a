// Recursive descent over the tokens. Precedence: NOT (and `!`, `-`) binds tightest, then AND, then OR.
import type { QueryNode } from './query.ast';
import { dateRangeNode } from './query.dates';
import { QueryError } from './query.errors';
import { DATE_FIELDS, type FieldTarget, listNames, resolveField } from './query.fields';
import { lexQuery, type Token } from './query.lexer';
import { termNode } from './query.terms';

export const MAX_QUERY_LENGTH = 4096;
export const MAX_QUERY_TERMS = 100;
/** Parentheses and NOTs nested deeper than this are refused before they can exhaust the call stack. */
export const MAX_QUERY_DEPTH = 32;

const RANGE_ON_NON_DATE = `a single value (ranges are only allowed on ${listNames(DATE_FIELDS, 'and')})`;

/** Parses a token search query; an absent or blank query is `null`, which matches every token. */
export const parseQuery = (text: string | null | undefined): QueryNode | null => {
  if (text === null || text === undefined || text.trim() === '') return null;
  if (text.length > MAX_QUERY_LENGTH) {
    throw new QueryError('Query too long', MAX_QUERY_LENGTH + 1, `at most ${MAX_QUERY_LENGTH} characters`);
  }
  return new Parser(lexQuery(text)).parse();
};

// Words people type for operators that are not ours; naming them back helps more than "Unexpected value".
const OPERATOR_LOOKALIKES = new Set(['and', 'or', 'not', 'to', '&&', '||']);
const UPPER_CASE_HINT = ' (operators are upper-case: AND, OR, NOT)';

const isLookalike = (token: Token): boolean =>
  token.kind === 'value' && !token.quoted && OPERATOR_LOOKALIKES.has(token.value.toLowerCase());

const describe = (token: Token): string => {
  if (token.kind === 'end') return 'end of query';
  if (token.kind === 'field') return 'term';
  if (token.kind === 'value') return isLookalike(token) ? `"${token.value}"` : 'value';
  return `"${token.text}"`;
};

const combine = (kind: 'and' | 'or', children: QueryNode[]): QueryNode => {
  if (children.length === 1) return children[0];
  // `(a AND b) AND c` is one `and` of three: the AST never nests an operator inside itself.
  const flat = children.flatMap((child) =>
    (child.kind === 'and' || child.kind === 'or') && child.kind === kind ? child.children : [child],
  );
  return { kind, children: flat };
};

class Parser {
  private index = 0;
  private terms = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parse(): QueryNode {
    const node = this.parseOr();
    const next = this.peek();
    if (next.kind !== 'end') throw this.afterExpression(next, null);
    return node;
  }

  private parseOr(): QueryNode {
    const children = [this.parseAnd()];
    while (this.peek().kind === 'or') {
      this.take();
      children.push(this.parseAnd());
    }
    return combine('or', children);
  }

  private parseAnd(): QueryNode {
    const children = [this.parseUnary()];
    for (;;) {
      const kind = this.peek().kind;
      if (kind === 'and') this.take();
      else if (kind !== 'not') break; // `a NOT b` means `a AND NOT b`; the NOT is left for parseUnary
      children.push(this.parseUnary());
    }
    return combine('and', children);
  }

  private parseUnary(): QueryNode {
    const token = this.peek();
    if (token.kind !== 'not') return this.parsePrimary();
    this.take();
    return { kind: 'not', child: this.nested(token, () => this.parseUnary()) };
  }

  private parsePrimary(): QueryNode {
    const open = this.peek();
    if (open.kind === 'field') return this.parseTerm();
    if (open.kind !== 'lparen') throw this.expectedTerm(open);
    this.take();
    if (this.peek().kind === 'rparen') {
      throw new QueryError('Empty parentheses', open.start + 1, 'a term inside "(" and ")"');
    }
    const node = this.nested(open, () => this.parseOr());
    const close = this.peek();
    if (close.kind !== 'rparen') throw this.afterExpression(close, open);
    this.take();
    return node;
  }

  private parseTerm(): QueryNode {
    const field = this.take();
    if (++this.terms > MAX_QUERY_TERMS) {
      throw new QueryError('Too many terms', field.start + 1, `at most ${MAX_QUERY_TERMS} terms`);
    }
    const target = resolveField(field);
    const next = this.peek();
    const touching = next.start === field.end;
    if (touching && next.kind === 'range-open') return this.parseRange(target);
    if (touching && next.kind === 'value') return termNode(target, this.take());
    // A metadata key is the caller's text and may hold anything (digits of an SSN): it is named only as a placeholder.
    const name = field.value.toLowerCase().startsWith('metadata.') ? 'metadata.<key>' : field.value;
    if (touching && next.kind === 'lparen') {
      throw new QueryError(
        'Unsupported grouping after a field',
        next.start + 1,
        `a value; write (${name}:a OR ${name}:b) instead`,
      );
    }
    throw new QueryError('Missing value', field.end + 1, `a value right after "${name}:"`);
  }

  private parseRange(target: FieldTarget): QueryNode {
    const open = this.take();
    if (target.kind !== 'date') {
      throw new QueryError('Unsupported range', open.start + 1, RANGE_ON_NON_DATE);
    }
    const lower = this.takeBound();
    const to = this.take();
    if (to.kind !== 'to') {
      throw new QueryError(`Unexpected ${describe(to)}`, to.start + 1, '"TO" between the two ends of the range');
    }
    const upper = this.takeBound();
    const close = this.take();
    if (close.kind !== 'range-close') {
      const expected = `"]" or "}" to close the range at position ${open.start + 1}`;
      throw new QueryError(`Unexpected ${describe(close)}`, close.start + 1, expected);
    }
    return dateRangeNode(target.field, open, lower, upper, close);
  }

  private takeBound(): Token {
    const token = this.take();
    if (token.kind !== 'value') throw new QueryError(`Unexpected ${describe(token)}`, token.start + 1, 'a date or "*"');
    return token;
  }

  private nested(token: Token, parse: () => QueryNode): QueryNode {
    if (++this.depth > MAX_QUERY_DEPTH) {
      const expected = `at most ${MAX_QUERY_DEPTH} levels of parentheses and NOT`;
      throw new QueryError('Query nested too deeply', token.start + 1, expected);
    }
    const node = parse();
    this.depth -= 1;
    return node;
  }

  private expectedTerm(token: Token): QueryError {
    const position = token.start + 1;
    if (isLookalike(token)) {
      return new QueryError(`Unexpected ${describe(token)}`, position, `a term${UPPER_CASE_HINT}`);
    }
    switch (token.kind) {
      case 'value':
        return new QueryError('Missing field', position, 'field:value, e.g. type:card_number');
      case 'range-open':
        return new QueryError(
          `Missing field before "${token.text}"`,
          position,
          'a date field, e.g. created_at:[2024-01-01 TO *]',
        );
      case 'range-close':
        return new QueryError(`Unmatched "${token.text}"`, position, 'a term');
      case 'to':
        return new QueryError('Unexpected "TO"', position, 'a term (TO is only allowed inside a date range)');
      default:
        return new QueryError(`Unexpected ${describe(token)}`, position, 'a term');
    }
  }

  // What may follow a complete expression: AND, OR, or the end of the query (or of the open parenthesis).
  private afterExpression(token: Token, open: Token | null): QueryError {
    const position = token.start + 1;
    const expected = open ? 'AND, OR or ")"' : 'AND, OR or end of query';
    switch (token.kind) {
      case 'end': {
        // Only reached inside parentheses: at the top level the end of the query is where parsing stops.
        const closing = open ? `")" to close the "(" at position ${open.start + 1}` : 'a term';
        return new QueryError('Unexpected end of query', position, closing);
      }
      case 'rparen':
      case 'range-close':
        return new QueryError(`Unmatched "${token.text}"`, position, expected);
      case 'to':
        return new QueryError('Unexpected "TO"', position, `${expected} (TO is only allowed inside a date range)`);
      default: {
        const hint = isLookalike(token) ? UPPER_CASE_HINT : '';
        return new QueryError(`Unexpected ${describe(token)}`, position, `AND or OR between terms${hint}`);
      }
    }
  }

  private peek(): Token {
    return this.tokens[this.index];
  }

  private take(): Token {
    const token = this.tokens[this.index];
    if (token.kind !== 'end') this.index += 1;
    return token;
  }
}
