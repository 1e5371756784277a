// The single error a query can raise: a validation failure that names where the query went wrong.
import { DomainError } from '../shared/errors';

/**
 * Thrown for every invalid query. The message reads `<problem> at position <n>: expected <what>`, with a
 * 1-based character position into the query text (counted in UTF-16 code units, as JavaScript clients
 * index strings), and is also the one entry of `errors.query`.
 */
export class QueryError extends DomainError {
  readonly position: number;
  readonly expected: string;

  constructor(problem: string, position: number, expected: string) {
    const message = `${problem} at position ${position}: expected ${expected}`;
    super('validation', message, { query: [message] });
    this.name = 'QueryError';
    this.position = position;
    this.expected = expected;
  }
}

// Error bodies must never carry token data, and a searched value may be exactly that (an SSN in a data
// term, or an SSN pasted before a colon). So messages quote only operators, punctuation and names that look like
// words: letters, `_` and `.` only, no digits (a misspelt field, never a number someone pasted).
const IDENTIFIER = /^[A-Za-z_][A-Za-z_.]{0,29}$/;

/** `"name"` when it is safe to repeat back to the caller, otherwise nothing. */
export const quoteName = (name: string): string => (IDENTIFIER.test(name) ? ` "${name}"` : '');
