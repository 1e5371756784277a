// What the compiled filters mean, without a server: a small model of Meilisearch's filter engine (test support, below)
// runs them over flattened documents, and fast-check compares the outcome with the domain's reference evaluator.
// The live contract (test/contract/token-search.meili.spec.ts) checks the same against a real server when one is set.
import fc from 'fast-check';
import type { TokenDocument } from '@vault/application';
import { evaluateQuery, parseQuery, type QueryNode, type SearchableToken } from '@vault/domain';
import { queryNodeArbitrary, searchableTokenArbitrary } from '@vault/domain/search/query.arbitrary';
import { fieldExamples, matchingToken, otherToken } from '@vault/domain/search/query.field-examples';
import { compileTokenFilter, flattenToken } from './meili-token-filter';
import { meiliTokenExpiredFilter, meiliTokenSearchFilter } from './meili-tokens';

// ---- Test support: the subset of Meilisearch's filter language the adapter emits, with the server's semantics. ----
// Grammar and nesting limit follow milli's filter-parser (or → and → not → primary, MAX_FILTER_DEPTH 200, each level
// counted as it does); evaluation follows milli's filter.rs: NOT is the complement over all documents, a condition on
// a missing field is false, `=` on an array is true when any element matches, strings compare after normalize_facet.

type Filter =
  | { op: 'and' | 'or'; children: Filter[] }
  | { op: 'not'; child: Filter }
  | { op: 'exists'; field: string }
  | { op: 'in'; field: string; values: string[] }
  | { op: '=' | '>' | '>=' | '<' | '<='; field: string; value: string };

const MAX_FILTER_DEPTH = 200;
const TOKEN = /\s*(?:"((?:[^"\\]|\\.)*)"|(>=|<=|!=|[=<>()[\],])|([A-Za-z0-9_.-]+))/y;

function lex(text: string): Array<{ quoted?: string; symbol?: string; word?: string }> {
  const tokens = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.trimEnd().length) {
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`Unexpected text at ${TOKEN.lastIndex} in ${text}`);
    tokens.push(m[1] !== undefined ? { quoted: m[1].replace(/\\(.)/g, '$1') } : m[2] ? { symbol: m[2] } : { word: m[3] });
  }
  return tokens;
}

function parseFilter(text: string): { filter: Filter; depth: number } {
  const tokens = lex(text);
  let at = 0;
  let deepest = 0;
  const enter = (depth: number) => {
    if (depth > MAX_FILTER_DEPTH) throw new Error('Meilisearch would refuse this filter: nested too deeply');
    deepest = Math.max(deepest, depth);
  };
  const isWord = (word: string) => tokens[at]?.word === word;
  const expect = (symbol: string) => {
    if (tokens[at++]?.symbol !== symbol) throw new Error(`Expected ${symbol} in ${text}`);
  };
  const value = (): string => {
    const token = tokens[at++];
    const v = token?.quoted ?? token?.word;
    if (v === undefined) throw new Error(`Expected a value in ${text}`);
    return v;
  };
  const list = (op: 'and' | 'or', word: string, next: (depth: number) => Filter, depth: number): Filter => {
    enter(depth);
    const children = [next(depth + 1)];
    while (isWord(word) && ++at) children.push(next(depth + 1));
    return children.length === 1 ? children[0] : { op, children };
  };
  const or = (depth: number): Filter => list('or', 'OR', and, depth);
  const and = (depth: number): Filter => list('and', 'AND', not, depth);
  const not = (depth: number): Filter => {
    enter(depth);
    if (!isWord('NOT')) return primary(depth + 1);
    at++;
    return { op: 'not', child: not(depth + 1) };
  };
  const primary = (depth: number): Filter => {
    enter(depth);
    if (tokens[at]?.symbol === '(') {
      at++;
      const inner = or(depth + 1);
      expect(')');
      return inner;
    }
    const field = value();
    if (isWord('EXISTS') && ++at) return { op: 'exists', field };
    if (isWord('NOT') && tokens[at + 1]?.word === 'EXISTS' && (at += 2)) return { op: 'not', child: { op: 'exists', field } };
    if (isWord('IN') && ++at) {
      expect('[');
      const values = [value()];
      while (tokens[at]?.symbol === ',' && ++at) values.push(value());
      expect(']');
      return { op: 'in', field, values };
    }
    const op = tokens[at++]?.symbol;
    if (op !== '=' && op !== '>' && op !== '>=' && op !== '<' && op !== '<=') throw new Error(`Unsupported operator ${op}`);
    return { op, field, value: value() };
  };
  const filter = or(0);
  if (at !== tokens.length) throw new Error(`Trailing tokens in ${text}`);
  return { filter, depth: deepest };
}

/** milli's normalize_facet (trim, NFKD, lower-case) and its cut at MAX_FACET_VALUE_LENGTH bytes. */
const normalizeFacet = (value: string): string => {
  let out = value.trim().normalize('NFKD').toLowerCase();
  while (Buffer.byteLength(out) > 468) out = out.slice(0, -1);
  return out;
};

const asNumber = (text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new Error(`Meilisearch would refuse ${text} as a number`);
  return n;
};

function matches(filter: Filter, doc: Record<string, unknown>): boolean {
  switch (filter.op) {
    case 'and':
      return filter.children.every((child) => matches(child, doc));
    case 'or':
      return filter.children.some((child) => matches(child, doc));
    case 'not':
      return !matches(filter.child, doc);
    case 'exists':
      // Documented: a field holding null or an empty array counts as existing.
      return doc[filter.field] !== undefined;
  }
  const raw = doc[filter.field];
  const values = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
  const equal = (wanted: string) => (v: unknown) =>
    typeof v === 'string' ? normalizeFacet(v) === normalizeFacet(wanted) : typeof v === 'number' && v === Number(wanted);
  if (filter.op === 'in') return filter.values.some((wanted) => values.some(equal(wanted)));
  if (filter.op === '=') return values.some(equal(filter.value));
  const bound = asNumber(filter.value);
  const numbers = values.filter((v): v is number => typeof v === 'number');
  const compare = {
    '>': (n: number) => n > bound,
    '>=': (n: number) => n >= bound,
    '<': (n: number) => n < bound,
    '<=': (n: number) => n <= bound,
  };
  return numbers.some(compare[filter.op]);
}

/** A search's `filter` array: every element parsed on its own, all of them ANDed. */
const meiliMatches = (filter: string[], doc: Record<string, unknown>): boolean =>
  filter.every((element) => matches(parseFilter(element).filter, doc));

// ---- The properties. ----

function tokenDocument(token: SearchableToken, extra: Partial<TokenDocument> = {}): TokenDocument {
  return { ...token, tenant_id: 'tenant-a', expires_at: null, ...extra } as TokenDocument;
}

const flat = (doc: TokenDocument) => flattenToken(doc) as unknown as Record<string, unknown>;

describe('compileTokenFilter over flattenToken, on a model of Meilisearch, agrees with evaluateQuery', () => {
  it.each([
    ['vocabulary values (mostly hits)', false],
    ['free Unicode values (quotes, case, NFKD, lone surrogates)', true],
  ])('%s', (_name, freeText) => {
    const outcomes = new Set<boolean>();
    fc.assert(
      fc.property(fc.array(searchableTokenArbitrary(), { minLength: 1, maxLength: 8 }), queryNodeArbitrary({ freeText }), (tokens, query) => {
        const filter = compileTokenFilter(query);
        for (const token of tokens) {
          const expected = evaluateQuery(query, token);
          expect(meiliMatches([filter], flat(tokenDocument(token)))).toBe(expected);
          outcomes.add(expected);
        }
      }),
      { numRuns: 400 },
    );
    // Both answers occurred, so the comparison was not vacuous.
    expect([...outcomes].sort()).toEqual([false, true]);
  });

  it('agrees on the queries of the shared corpus', () => {
    const corpus = ['NOT modified_by:5e6f7a8b-1c2d-4e3f-9a0b-c1d2e3f4a5b6', 'modified_at:[* TO *]', 'container:"/pii/*" AND -data:6789'];
    fc.assert(
      fc.property(searchableTokenArbitrary(), fc.constantFrom(...corpus), (token, text) => {
        const query = parseQuery(text)!;
        expect(meiliMatches([compileTokenFilter(query)], flat(tokenDocument(token)))).toBe(evaluateQuery(query, token));
      }),
    );
  });

  // The random vocabulary draws every field too; this names each one, so a field added to SEARCH_FIELDS is checked here.
  it.each(fieldExamples.flatMap(({ query }) => [query, `NOT ${query}`]))('agrees on the example for every field: %s', (text) => {
    const query = parseQuery(text)!;
    const outcomes = [matchingToken, otherToken].map((token) => {
      const expected = evaluateQuery(query, token);
      expect(meiliMatches([compileTokenFilter(query)], flat(tokenDocument(token)))).toBe(expected);
      return expected;
    });
    expect(outcomes.sort()).toEqual([false, true]);
  });

  // A stored placeholder for "never modified" would make some value match; the random vocabulary might never hit it.
  it.each(['null', 'undefined', 'none', '', ' '])('a never-modified token has no modified_by, not even %j', (value) => {
    const token = fc.sample(searchableTokenArbitrary(), 1)[0];
    const doc = flat(tokenDocument({ ...token, modified_by: null, modified_at: null }));
    const term: QueryNode = { kind: 'term', field: 'modified_by', value };
    expect(meiliMatches([compileTokenFilter(term)], doc)).toBe(false);
    expect(meiliMatches([compileTokenFilter({ kind: 'not', child: term })], doc)).toBe(true);
  });
});

describe('the search filter array', () => {
  // Tenant ids that Meilisearch's own normalization would merge: case, NFKD (full-width letter), a trailing space.
  const tenants = ['tenant-a', 'Tenant-A', 'ｔenant-a', 'tenant-a '];
  const NOW = Date.UTC(2024, 5, 1);
  const expiry = fc.option(fc.constantFrom(NOW - 1, NOW, NOW + 1), { nil: null });

  it('keeps exactly the tenant’s live tokens the query matches, whatever the query says', () => {
    fc.assert(
      fc.property(
        searchableTokenArbitrary(),
        fc.constantFrom(...tenants),
        fc.constantFrom(...tenants),
        expiry,
        fc.option(queryNodeArbitrary(), { nil: null }),
        (token, owner, caller, expires, query) => {
          const doc = tokenDocument(token, { tenant_id: owner, expires_at: expires === null ? null : new Date(expires).toISOString() });
          const expected = owner === caller && (expires === null || expires > NOW) && evaluateQuery(query, token);
          expect(meiliMatches(meiliTokenSearchFilter(caller, query, NOW), flat(doc))).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('finds for the sweep exactly the tokens expired at or before now', () => {
    fc.assert(
      fc.property(searchableTokenArbitrary(), expiry, (token, expires) => {
        const doc = tokenDocument(token, { expires_at: expires === null ? null : new Date(expires).toISOString() });
        expect(meiliMatches([meiliTokenExpiredFilter(NOW)], flat(doc))).toBe(expires !== null && expires <= NOW);
      }),
    );
  });

  it("stays within Meilisearch's filter nesting limit for the deepest query the parser accepts", () => {
    // Parenthesised groups nested as deep as MAX_QUERY_DEPTH allows cost the filter parser the most levels.
    let text = 'data:1 AND created_at:[2024-01-01 TO 2024-02-01]';
    let deepest: QueryNode | null = null;
    for (let level = 0; ; level++) {
      try {
        deepest = parseQuery(text);
      } catch {
        break;
      }
      text = level % 2 === 0 ? `type:a OR (${text})` : `type:b AND (${text})`;
    }
    // The application layer ANDs the caller's query with the access-rule scope.
    const scope: QueryNode = {
      kind: 'or',
      children: [{ kind: 'container', path: '/a/', descendants: true }, { kind: 'data', value: 'x' }],
    };
    const scoped: QueryNode = { kind: 'not', child: { kind: 'and', children: [deepest!, scope] } };
    const depths = meiliTokenSearchFilter('t', scoped, 0).map((element) => parseFilter(element).depth);
    expect(Math.max(...depths)).toBeLessThanOrEqual(MAX_FILTER_DEPTH);
  });
});
