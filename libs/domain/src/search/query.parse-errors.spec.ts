import { DomainError } from '../shared/errors';
import { QueryError } from './query.errors';
import { MAX_QUERY_DEPTH, MAX_QUERY_LENGTH, MAX_QUERY_TERMS, parseQuery } from './query.parse';

// Each case: the query, then the message (or the start of it) the 400 carries in errors.query.
const rejects = (cases: [query: string, message: string][]) =>
  it.each(cases)('%s', (query, message) => {
    const error = catchError(() => parseQuery(query));
    expect(error).toBeInstanceOf(QueryError);
    expect(error.message).toContain(message);
  });

const catchError = (run: () => unknown): QueryError => {
  try {
    run();
  } catch (error) {
    return error as QueryError;
  }
  throw new Error('expected the query to be rejected');
};

describe('QueryError', () => {
  it('type:card and type:ssn', () => {
    const error = catchError(() => parseQuery('type:card and type:ssn'));
    expect(error).toBeInstanceOf(DomainError);
    expect(error.kind).toBe('validation');
    expect(error.position).toBe(11);
    expect(error.expected).toBe('AND or OR between terms (operators are upper-case: AND, OR, NOT)');
    expect(error.message).toBe(
      'Unexpected "and" at position 11: expected AND or OR between terms (operators are upper-case: AND, OR, NOT)',
    );
    expect(error.errors).toEqual({ query: [error.message] });
  });

  // A searched value may be token data (an SSN), and error bodies never carry token data.
  it.each(['123-45-6789', '123-45-6789:x', 'type:a 123-45-6789', 'data:123-45-6789 "123-45-6789"'])('%s', (query) => {
    expect(catchError(() => parseQuery(query)).message).not.toContain('6789');
  });
});

describe('parseQuery rejects terms side by side without an operator', () => {
  rejects([
    ['type:card and type:ssn', 'Unexpected "and" at position 11: expected AND or OR between terms (operators are upper-case'],
    ['type:card or type:ssn', 'Unexpected "or" at position 11: expected AND or OR between terms'],
    ['type:a && type:b', 'Unexpected "&&" at position 8: expected AND or OR between terms'],
    ['type:a type:b', 'Unexpected term at position 8: expected AND or OR between terms'],
    ['type:a "b"', 'Unexpected value at position 8: expected AND or OR between terms'],
    ['type:a (type:b)', 'Unexpected "(" at position 8: expected AND or OR between terms'],
    ['type:a"b"', 'Unexpected value at position 7: expected AND or OR between terms'],
    ['(type:a type:b)', 'Unexpected term at position 9: expected AND or OR between terms'],
    ['not type:a', 'Unexpected "not" at position 1: expected a term (operators are upper-case'],
  ]);
});

describe('parseQuery rejects field-less terms, unknown fields and bad metadata keys', () => {
  rejects([
    ['card', 'Missing field at position 1: expected field:value, e.g. type:card_number'],
    ['"card number"', 'Missing field at position 1'],
    ['type:a OR card', 'Missing field at position 11'],
    [':card', 'Missing field name at position 1: expected field:value'],
    ['foo:bar', 'Unknown field "foo" at position 1: expected one of id, type, fingerprint, container, data, metadata.<key>'],
    ['Type:card', 'Unknown field "Type" at position 1'],
    ['123456789:x', 'Unknown field at position 1'],
    // A number pasted before a colon is never repeated back: it may be the very data being searched.
    ['x918-27-3645:1', 'Unknown field at position 1'],
    ['ssn123456789:1', 'Unknown field at position 1'],
    ['metadata:x', 'Missing metadata key at position 1: expected metadata.<key>:<value>'],
    ['metadata.:x', 'Missing metadata key at position 10'],
    ['metadata.a/b:x', 'Invalid metadata key at position 10: expected a key of 1 to 100 letters, digits, "_", "." or "-"'],
    [`metadata.${'k'.repeat(101)}:x`, 'Invalid metadata key at position 10'],
    ['_exists_:type', 'Unsupported "_exists_" at position 1: expected field:value'],
    ['*:*', 'Unsupported wildcard "*" at position 1: expected a field name'],
  ]);
});

describe('parseQuery rejects empty values', () => {
  rejects([
    ['type:', 'Missing value at position 6: expected a value right after "type:"'],
    // A metadata key is the caller's text: it is not repeated back.
    ['metadata.ssn123-45-6789:', 'Missing value at position 25: expected a value right after "metadata.<key>:"'],
    ['metadata.ssn123456789:(a)', 'expected a value; write (metadata.<key>:a OR metadata.<key>:b) instead'],
    ['type: card', 'Missing value at position 6'],
    ['type:)', 'Missing value at position 6'],
    ['(type:)', 'Missing value at position 7'],
    ['type:""', 'Empty value at position 6: expected a non-empty value'],
    ['metadata.k:""', 'Empty value at position 12'],
    ['container:""', 'Empty value at position 11'],
    ['created_at:""', 'Empty value at position 12'],
    ['created_at: [2024-01-01 TO *]', 'Missing value at position 12'],
  ]);
});

describe('parseQuery rejects wildcards other than a trailing * on a container path', () => {
  rejects([
    ['type:card*', 'Unsupported wildcard "*" at position 10: expected an exact value'],
    ['type:"ca*d"', 'Unsupported wildcard "*" at position 9'],
    ['type:*', 'Unsupported wildcard "*" at position 6'],
    ['data:*6789', 'Unsupported wildcard "*" at position 6'],
    ['fingerprint:Ab*', 'Unsupported wildcard "*" at position 15'],
    ['metadata.k:*', 'Unsupported wildcard "*" at position 12'],
    ['created_at:2024-*', 'Unsupported wildcard "*" at position 17'],
    ['container:/a/*/b/', 'Unsupported wildcard "*" at position 14: expected a single "*" only at the end of a container path'],
    ['container:"/a/b/**"', 'Unsupported wildcard "*" at position 17'],
    ['type:ca?d', 'Unsupported wildcard "?" at position 8: expected an exact value (quote values that contain "?")'],
  ]);
});

describe('parseQuery rejects container values that are not paths', () => {
  rejects([
    ['container:*', 'Invalid container path at position 11: expected a path that starts and ends with "/"'],
    ['container:/a/b*', 'Invalid container path at position 11'],
    ['container:a/b/', 'Invalid container path at position 11'],
    ['container:/a/b', 'Invalid container path at position 11'],
    ['container:"/a//b/"', 'Invalid container path at position 11'],
    ['container:"/a b/"', 'Invalid container path at position 11'],
  ]);
});

describe('parseQuery rejects the Lucene syntax the query language leaves out', () => {
  rejects([
    ['type:card~', 'Unsupported fuzzy or proximity search "~" at position 10: expected an exact value'],
    ['type:card~2', 'Unsupported fuzzy or proximity search "~" at position 10'],
    ['type:"card number"~2', 'Unsupported fuzzy or proximity search "~" at position 19'],
    ['type:card^2', 'Unsupported boost "^" at position 10: expected an exact value'],
    ['type:"card"^2', 'Unsupported boost "^" at position 12'],
    ['(type:a)^2', 'Unsupported boost "^" at position 9'],
    ['type:/card.*/', 'Unsupported regular expression at position 6: expected an exact value (quote values that start with "/")'],
    ['id:/abc/', 'Unsupported regular expression at position 4'],
    ['metadata.k:/x/', 'Unsupported regular expression at position 12'],
    ['data:/[0-9]+/', 'Unsupported regular expression at position 6'],
    ['type:a\\:b', 'Unsupported escape "\\" at position 7'],
    ['type:"a\\nb"', 'Unsupported escape at position 8: expected \\" or \\\\'],
    ['type:(card OR ssn)', 'Unsupported grouping after a field at position 6: expected a value; write (type:a OR type:b) instead'],
  ]);
});

describe('parseQuery rejects ranges on fields that are not dates, and TO outside a range', () => {
  rejects([
    ['type:[a TO b]', 'Unsupported range at position 6: expected a single value (ranges are only allowed on created_at and modified_at)'],
    ['container:[/a/ TO /b/]', 'Unsupported range at position 11'],
    ['metadata.k:{a TO b}', 'Unsupported range at position 12'],
    ['data:[1 TO 2]', 'Unsupported range at position 6'],
    ['[2024-01-01 TO *]', 'Missing field before "[" at position 1: expected a date field'],
    ['type:a TO type:b', 'Unexpected "TO" at position 8: expected AND, OR or end of query (TO is only allowed inside a date range)'],
    ['TO type:a', 'Unexpected "TO" at position 1: expected a term (TO is only allowed inside a date range)'],
    ['(type:a TO)', 'Unexpected "TO" at position 9: expected AND, OR or ")"'],
  ]);
});

describe('parseQuery rejects malformed date ranges', () => {
  rejects([
    ['created_at:[2024-01-01 2024-01-31]', 'Unexpected value at position 24: expected "TO" between the two ends of the range'],
    ['created_at:[2024-01-01 AND 2024-01-31]', 'Unexpected "AND" at position 24: expected "TO"'],
    ['created_at:[2024-01-01 TO]', 'Unexpected "]" at position 26: expected a date or "*"'],
    ['created_at:[TO 2024-01-01]', 'Unexpected "TO" at position 13: expected a date or "*"'],
    ['created_at:[]', 'Unexpected "]" at position 13: expected a date or "*"'],
    ['created_at:[2024-01-01 TO 2024-01-31', 'Unexpected end of query at position 37: expected "]" or "}" to close the range at position 12'],
    ['created_at:[2024-01-01 TO * AND type:a', 'Unexpected "AND" at position 29: expected "]" or "}"'],
    ['created_at:[a TO b TO c]', 'Unexpected "TO" at position 20: expected "]" or "}"'],
    ['created_at:[2024-01-01 TO (2024-01-31)]', 'Unexpected "(" at position 27: expected a date or "*"'],
    ['created_at:[2024-01-01 TO *]]', 'Unmatched "]" at position 29: expected AND, OR or end of query'],
  ]);
});

describe('parseQuery rejects values that are not ISO 8601 dates or UTC date-times', () => {
  rejects([
    ['created_at:2024-02-30', 'Invalid date at position 12: expected an ISO 8601 date (YYYY-MM-DD) or UTC date-time'],
    ['created_at:2023-02-29', 'Invalid date at position 12'],
    ['created_at:1900-02-29', 'Invalid date at position 12'],
    ['created_at:2024-04-31', 'Invalid date at position 12'],
    ['created_at:2024-13-01', 'Invalid date at position 12'],
    ['created_at:2024-00-10', 'Invalid date at position 12'],
    ['created_at:2024-01-00', 'Invalid date at position 12'],
    ['created_at:2024-1-1', 'Invalid date at position 12'],
    ['created_at:24-01-01', 'Invalid date at position 12'],
    ['created_at:+002024-01-01', 'Invalid date at position 12'],
    ['created_at:2024-01-01T24:00Z', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10:60Z', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10:00:60Z', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10:00:00', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10:00:00+01:00', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10:00:00-00:00', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10:00:00.1234Z', 'Invalid date at position 12'],
    ['created_at:2024-01-01T10Z', 'Invalid date at position 12'],
    ['created_at:2024-01-01t10:00:00z', 'Invalid date at position 12'],
    ['created_at:yesterday', 'Invalid date at position 12'],
    ['created_at:1704067200000', 'Invalid date at position 12'],
    ['created_at:[2024-02-30 TO *]', 'Invalid date at position 13'],
    ['created_at:[* TO 2024-01-01T10:00:00-05:00]', 'Invalid date at position 18'],
    ['created_at:["*" TO *]', 'Invalid date at position 13'],
    ['created_at:[2024-01-01 TO ""]', 'Empty value at position 27: expected a date'],
    ['modified_at:[2024-01-01 TO "2024-01-32"]', 'Invalid date at position 28'],
  ]);
});

describe('parseQuery rejects unbalanced parentheses, brackets and quotes', () => {
  rejects([
    ['(type:a', 'Unexpected end of query at position 8: expected ")" to close the "(" at position 1'],
    ['((type:a)', 'Unexpected end of query at position 10: expected ")" to close the "(" at position 1'],
    ['type:a)', 'Unmatched ")" at position 7: expected AND, OR or end of query'],
    [')(', 'Unexpected ")" at position 1: expected a term'],
    ['(type:a]', 'Unmatched "]" at position 8: expected AND, OR or ")"'],
    ['type:a]', 'Unmatched "]" at position 7'],
    ['type:a}', 'Unmatched "}" at position 7'],
    [']', 'Unmatched "]" at position 1: expected a term'],
    ['()', 'Empty parentheses at position 1: expected a term inside "(" and ")"'],
    ['( )', 'Empty parentheses at position 1'],
    ['type:a AND ()', 'Empty parentheses at position 12'],
    ['type:"card', 'Unterminated quote at position 6: expected a closing double quote'],
    ['type:"a\\"', 'Unterminated quote at position 6'],
    ['type:"a\\', 'Unterminated quote at position 6'],
    ['type:a"', 'Unterminated quote at position 7'],
    ['"', 'Unterminated quote at position 1'],
  ]);
});

describe('parseQuery rejects dangling operators', () => {
  rejects([
    ['type:a AND', 'Unexpected end of query at position 11: expected a term'],
    ['type:a OR', 'Unexpected end of query at position 10: expected a term'],
    ['type:a NOT', 'Unexpected end of query at position 11: expected a term'],
    ['type:a AND NOT', 'Unexpected end of query at position 15: expected a term'],
    ['AND type:a', 'Unexpected "AND" at position 1: expected a term'],
    ['OR type:a', 'Unexpected "OR" at position 1: expected a term'],
    ['NOT', 'Unexpected end of query at position 4: expected a term'],
    ['!', 'Unexpected end of query at position 2: expected a term'],
    ['-', 'Unexpected end of query at position 2: expected a term'],
    ['type:a AND OR type:b', 'Unexpected "OR" at position 12: expected a term'],
    ['type:a AND AND type:b', 'Unexpected "AND" at position 12: expected a term'],
    ['(type:a OR)', 'Unexpected ")" at position 11: expected a term'],
    ['(NOT)', 'Unexpected ")" at position 5: expected a term'],
  ]);
});

describe('parseQuery enforces its limits', () => {
  it(`a query of ${MAX_QUERY_LENGTH + 1} characters`, () => {
    const error = catchError(() => parseQuery(`type:${'a'.repeat(MAX_QUERY_LENGTH - 4)}`));
    expect(error.message).toBe('Query too long at position 4097: expected at most 4096 characters');
  });

  it(`a query of ${MAX_QUERY_TERMS + 1} terms`, () => {
    const query = Array.from({ length: MAX_QUERY_TERMS + 1 }, () => 'type:a').join(' OR ');
    const error = catchError(() => parseQuery(query));
    expect(error.message).toBe(`Too many terms at position ${MAX_QUERY_TERMS * 10 + 1}: expected at most 100 terms`);
  });

  it(`${MAX_QUERY_DEPTH + 1} levels of parentheses`, () => {
    const query = `${'('.repeat(MAX_QUERY_DEPTH + 1)}type:a${')'.repeat(MAX_QUERY_DEPTH + 1)}`;
    expect(catchError(() => parseQuery(query)).message).toBe(
      'Query nested too deeply at position 33: expected at most 32 levels of parentheses and NOT',
    );
  });

  it(`${MAX_QUERY_DEPTH + 1} NOTs in a row`, () => {
    expect(catchError(() => parseQuery(`${'!'.repeat(MAX_QUERY_DEPTH + 1)}type:a`)).message).toContain(
      'Query nested too deeply at position 33',
    );
  });

  it('parentheses nested as deep as the length limit allows still fail as a QueryError', () => {
    expect(catchError(() => parseQuery('('.repeat(MAX_QUERY_LENGTH)))).toBeInstanceOf(QueryError);
  });
});
