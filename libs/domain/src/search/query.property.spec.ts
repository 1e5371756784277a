import fc from 'fast-check';
import { queryNodeArbitrary, searchableTokenArbitrary } from './query.arbitrary';
import { QueryError } from './query.errors';
import { evaluateQuery } from './query.evaluate';
import { parseQuery } from './query.parse';
import { serializeQuery } from './query.serialize';

// Parsing must end in an AST, null or a QueryError: anything else would be a 500 for a bad query.
const parsesOrRejects = (query: string): void => {
  try {
    parseQuery(query);
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
  }
};

const FRAGMENTS = [
  'type', 'id', 'fingerprint', 'container', 'data', 'metadata', 'metadata.k', 'created_at', 'modified_at',
  '_exists_', 'foo', ':', ' ', '"', '\\', '(', ')', '[', ']', '{', '}', 'TO', 'AND', 'OR', 'NOT', 'and', '!', '-',
  '*', '~', '^', '?', '/', '/a/', '/a/b/*', '2024-01-01', 'T10:00:00Z', '2024-02-30', '+00:00', 'abc', 'ÄÖ', '\u{1F600}',
];

const fragmentSoup = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 30 }).map((parts) => parts.join(''));

// Query text shaped like what people write: mostly valid, with unknown fields, wildcards, bad dates and
// missing operators mixed in, so that both the accepting and the rejecting paths get exercised.
const quoted = fc.string({ maxLength: 8 }).map((text) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`);
const bare = fc.constantFrom('card', 'Card_Number', 'a-b', 'x:y', '-x', 'AND', 'TO', '/a/', '/a/b/*', '/', '/*', 'a*', 'x~');
const dateText = fc.constantFrom(
  '2024-01-01', '2024-01-31T10:00:00Z', '2024-02-29T00:00:00.5Z', '2024-01-01T10:00+00:00', '9999-12-31', '0000-01-01',
  '"2024-03-01"', '*', '2024-02-30',
);
const range = fc
  .tuple(fc.constantFrom('[', '{'), dateText, dateText, fc.constantFrom(']', '}'))
  .map(([open, from, to, close]) => `${open}${from} TO ${to}${close}`);
const field = fc.constantFrom(
  'type', 'id', 'fingerprint', 'created_by', 'modified_by', 'container', 'data', 'metadata.k', 'metadata.Key.x',
  'created_at', 'modified_at', 'foo',
);
const termText = fc
  .tuple(field, fc.oneof(bare, quoted, dateText, range))
  .map(([name, value]) => `${name}:${value}`);
const queryText: fc.Arbitrary<string> = fc.letrec<{ query: string; binary: string; not: string; group: string }>((tie) => ({
  query: fc.oneof({ depthSize: 'small', withCrossShrink: true }, termText, tie('binary'), tie('not'), tie('group')),
  binary: fc
    .tuple(tie('query'), fc.constantFrom(' AND ', ' OR ', ' NOT ', ' -', ' !', ' '), tie('query'))
    .map(([left, operator, right]) => `${left}${operator}${right}`),
  not: fc.tuple(fc.constantFrom('NOT ', '!', '-'), tie('query')).map(([not, query]) => `${not}${query}`),
  group: tie('query').map((query) => `(${query})`),
})).query;

// A shaped query with one fragment inserted somewhere: near-misses of valid syntax.
const mutated = fc
  .tuple(queryText, fc.nat(), fc.constantFrom(...FRAGMENTS))
  .map(([query, at, fragment]) => {
    const index = at % (query.length + 1);
    return `${query.slice(0, index)}${fragment}${query.slice(index)}`;
  });

describe('query properties', () => {
  it('any string parses or is rejected with a QueryError', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), parsesOrRejects), { numRuns: 2000 });
  });

  it('any string of query fragments parses or is rejected with a QueryError', () => {
    fc.assert(fc.property(fc.oneof(fragmentSoup, queryText, mutated), parsesOrRejects), { numRuns: 5000 });
  });

  it('any query the parser accepts serialises to text that parses back to the same AST', () => {
    fc.assert(
      fc.property(fc.oneof(queryText, mutated), (query) => {
        let ast;
        try {
          ast = parseQuery(query);
        } catch {
          return;
        }
        expect(parseQuery(serializeQuery(ast))).toEqual(ast);
      }),
      { numRuns: 5000 },
    );
  });

  it('parseQuery(serializeQuery(ast)) deep-equals every normalised AST', () => {
    fc.assert(
      fc.property(queryNodeArbitrary(), (ast) => {
        expect(parseQuery(serializeQuery(ast))).toEqual(ast);
      }),
      { numRuns: 1000 },
    );
  });

  it('serialisation is canonical: serialising the reparsed AST gives the same text', () => {
    fc.assert(
      fc.property(queryNodeArbitrary(), (ast) => {
        const text = serializeQuery(ast);
        expect(serializeQuery(parseQuery(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('NOT matches exactly the tokens its operand does not', () => {
    fc.assert(
      fc.property(queryNodeArbitrary({ freeText: false }), searchableTokenArbitrary(), (ast, token) => {
        expect(evaluateQuery({ kind: 'not', child: ast }, token)).toBe(!evaluateQuery(ast, token));
      }),
      { numRuns: 500 },
    );
  });

  it('the vocabulary-only arbitrary yields queries that match some generated tokens and miss others', () => {
    const outcomes = fc
      .sample(fc.tuple(queryNodeArbitrary({ freeText: false }), searchableTokenArbitrary()), { numRuns: 500, seed: 42 })
      .map(([ast, token]) => evaluateQuery(ast, token));
    expect(outcomes.filter(Boolean).length).toBeGreaterThan(50);
    expect(outcomes.filter((matched) => !matched).length).toBeGreaterThan(50);
  });
});
