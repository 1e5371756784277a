// TEST SUPPORT ONLY (imports fast-check, never exported from index.ts): arbitraries for query ASTs and
// searchable tokens. The parser's property tests use them, and so do the search adapters' suites that
// compare each adapter with evaluateQuery. Queries and tokens draw on one small shared vocabulary so that
// generated queries actually hit generated tokens, mixed with free text to exercise quoting and escaping.
import fc from 'fast-check';
import type { QueryNode, TermField } from './query.ast';
import { MAX_INSTANT, MIN_INSTANT } from './query.dates';
import { DATE_FIELDS, isExactField, type SearchFieldKind, TERM_FIELDS } from './query.fields';
import { MAX_QUERY_LENGTH, MAX_QUERY_TERMS } from './query.parse';
import { serializeQuery } from './query.serialize';
import type { SearchableToken } from './token-terms';

export const queryVocabulary = {
  ids: ['0b9e3f5c-6f3c-4f7e-9d1a-2c4b6a8e0f11', '7d2c1b0a-3e4f-4a5b-8c6d-9e0f1a2b3c4d'],
  types: ['token', 'card_number', 'social_security_number', 'employer_id_number'],
  // Two fingerprints differ only in case: fingerprint is the one exact-match field.
  fingerprints: ['8FkQz3vP', '8fkqz3vp', 'Yt7pLmN2'],
  applications: ['5e6f7a8b-1c2d-4e3f-9a0b-c1d2e3f4a5b6', 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d'],
  containers: ['/', '/pii/', '/pii/high/', '/pci/high/', '/general/high/'],
  metadataKeys: ['customer', 'Region', 'a.b'],
  metadataValues: ['acme', 'ACME', 'eu', 'say "hi"'],
  dataIndexes: ['123-45-6789', '123456789', '6789', '12-3456789', 'AbC-1'],
  instants: [
    Date.UTC(2024, 0, 1),
    Date.UTC(2024, 0, 31, 23, 59, 59, 999),
    Date.UTC(2024, 1, 1),
    Date.UTC(2024, 1, 29, 12, 30),
  ],
} as const;

export interface QueryArbitraryOptions {
  /** Levels of and/or/not above the leaves; default 3 (at most 27 terms with the default maxChildren). */
  maxDepth?: number;
  /** Children of one and/or; default 3. */
  maxChildren?: number;
  /** Mix arbitrary Unicode values in with the vocabulary; default true. Turn off to get mostly hits. */
  freeText?: boolean;
}

/**
 * Normalised ASTs, exactly as parseQuery could return them: values lower-cased (fingerprints excepted),
 * no `and` directly inside `and` (nor `or` in `or`), dates within years 0000-9999, within the query limits.
 */
export const queryNodeArbitrary = (options: QueryArbitraryOptions = {}): fc.Arbitrary<QueryNode> => {
  const { maxDepth = 3, maxChildren = 3, freeText = true } = options;
  const leaf = leafArbitrary(freeText);
  let level = { any: leaf, notAnd: leaf, notOr: leaf };
  for (let depth = 1; depth <= maxDepth; depth++) {
    const below = level;
    const not = below.any.map((child): QueryNode => ({ kind: 'not', child }));
    const and = fc
      .array(below.notAnd, { minLength: 2, maxLength: maxChildren })
      .map((children): QueryNode => ({ kind: 'and', children }));
    const or = fc
      .array(below.notOr, { minLength: 2, maxLength: maxChildren })
      .map((children): QueryNode => ({ kind: 'or', children }));
    const weighted = (...arbitraries: fc.Arbitrary<QueryNode>[]) =>
      fc.oneof({ arbitrary: leaf, weight: 3 }, ...arbitraries.map((arbitrary) => ({ arbitrary, weight: 1 })));
    level = { any: weighted(not, and, or), notAnd: weighted(not, or), notOr: weighted(not, and) };
  }
  return level.any.filter(
    (ast) => countTerms(ast) <= MAX_QUERY_TERMS && serializeQuery(ast).length <= MAX_QUERY_LENGTH,
  );
};

/** Token records built from the same vocabulary as the queries, with a value for every field of SEARCH_FIELDS. */
export const searchableTokenArbitrary = (): fc.Arbitrary<SearchableToken> => {
  const v = queryVocabulary;
  return fc
    .record({
      id: fc.constantFrom(...v.ids),
      type: fc.constantFrom(...v.types),
      fingerprint: fc.constantFrom(...v.fingerprints),
      containers: fc.uniqueArray(fc.constantFrom(...v.containers), { minLength: 1, maxLength: 3 }),
      metadata: fc.dictionary(fc.constantFrom(...v.metadataKeys), fc.constantFrom(...v.metadataValues), { maxKeys: 3 }),
      created_by: fc.constantFrom(...v.applications),
      created_at: tokenInstant(),
      modification: fc.option(fc.record({ by: fc.constantFrom(...v.applications), at: tokenInstant() }), { nil: null }),
      search_hashes: fc.uniqueArray(fc.constantFrom(...v.dataIndexes), { maxLength: 3 }),
    })
    .map(({ modification, created_at, ...token }) => ({
      ...token,
      created_at: iso(created_at),
      modified_by: modification?.by ?? null,
      modified_at: modification === null ? null : iso(modification.at),
    }));
};

const iso = (instant: number): string => new Date(instant).toISOString();

const countTerms = (node: QueryNode): number => {
  if (node.kind === 'and' || node.kind === 'or') {
    return node.children.reduce((sum, child) => sum + countTerms(child), 0);
  }
  return node.kind === 'not' ? countTerms(node.child) : 1;
};

const leafArbitrary = (freeText: boolean): fc.Arbitrary<QueryNode> => {
  const v = queryVocabulary;
  const text = (words: readonly string[]) =>
    freeText ? fc.oneof(fc.constantFrom(...words), anyValue) : fc.constantFrom(...words);
  const lowered = (words: readonly string[]) => text(words).map((value) => value.toLowerCase());
  const termWords: Record<TermField, readonly string[]> = {
    id: v.ids,
    type: v.types,
    fingerprint: v.fingerprints,
    created_by: v.applications,
    modified_by: v.applications,
  };
  const term = fc.oneof(
    ...TERM_FIELDS.map((field) =>
      (isExactField(field) ? text : lowered)(termWords[field]).map((value): QueryNode => ({ kind: 'term', field, value })),
    ),
  );
  const paths = freeText ? fc.oneof(fc.constantFrom(...v.containers), containerPath) : fc.constantFrom(...v.containers);
  const container = fc
    .record({ path: paths, descendants: fc.boolean() })
    .map((c): QueryNode => ({ kind: 'container', ...c }));
  const keys = freeText
    ? fc.oneof(fc.constantFrom(...v.metadataKeys), metadataKey)
    : fc.constantFrom(...v.metadataKeys);
  const metadata = fc
    .record({ key: keys.map((key) => key.toLowerCase()), value: lowered(v.metadataValues) })
    .map((m): QueryNode => ({ kind: 'metadata', ...m }));
  const data = lowered(v.dataIndexes).map((value): QueryNode => ({ kind: 'data', value }));
  // One arbitrary per kind, each drawing its field from SEARCH_FIELDS, so every kind is as likely as any other.
  const leaves: Record<SearchFieldKind, fc.Arbitrary<QueryNode>> = {
    term,
    container,
    metadata,
    data,
    date: dateRange(freeText),
  };
  return fc.oneof(...Object.values(leaves));
};

// Any non-empty Unicode text without '*', which no value but a container path may hold.
const anyValue = fc
  .oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), fc.string({ minLength: 1, maxLength: 12 }))
  .filter((value) => !value.includes('*'));

const containerPath = fc
  .array(fc.stringMatching(/^[a-z0-9_-]{1,8}$/), { maxLength: 3 })
  .map((segments) => `/${segments.map((segment) => `${segment}/`).join('')}`);

const metadataKey = fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/);

const dateRange = (freeText: boolean): fc.Arbitrary<QueryNode> => {
  const known = fc.constantFrom(...queryVocabulary.instants);
  // One past the last millisecond of 9999 is reachable: `{9999-12-31` starts when that day ends.
  const instant = freeText ? fc.oneof(known, fc.integer({ min: MIN_INSTANT, max: MAX_INSTANT + 1 })) : known;
  return fc
    .record({
      field: fc.constantFrom(...DATE_FIELDS),
      gte: fc.option(instant, { nil: null }),
      lt: fc.option(instant, { nil: null }),
    })
    .map((range): QueryNode => ({ kind: 'date', ...range }));
};

const tokenInstant = () =>
  fc.oneof(
    fc.constantFrom(...queryVocabulary.instants),
    fc.integer({ min: Date.UTC(2023, 11, 1), max: Date.UTC(2024, 2, 1) }),
  );
