import fc from 'fast-check';
import type { QueryNode } from './query.ast';
import { queryNodeArbitrary } from './query.arbitrary';
import { evaluateQuery } from './query.evaluate';
import { fieldExamples, matchingToken, otherToken } from './query.field-examples';
import {
  DATE_FIELDS,
  type DateField,
  FIELD_NAMES,
  SEARCH_FIELDS,
  type SearchFieldOfKind,
  type SearchFieldSpec,
  TERM_FIELDS,
  type TermField,
} from './query.fields';
import { parseQuery } from './query.parse';

describe('SEARCH_FIELDS: each field parses to a node of its kind, and its example matches only the token it describes', () => {
  it.each(fieldExamples.map(({ field, query }) => [query, field] as const))('%s', (query, field) => {
    const node = parseQuery(query)!;
    expect(node.kind).toBe(SEARCH_FIELDS[field].kind);
    if (node.kind === 'term' || node.kind === 'date') expect(node.field).toBe(field);
    expect(evaluateQuery(node, matchingToken)).toBe(true);
    expect(evaluateQuery(node, otherToken)).toBe(false);
    expect(evaluateQuery({ kind: 'not', child: node }, otherToken)).toBe(true);
  });
});

describe('the lists derived from SEARCH_FIELDS', () => {
  it('name every field once, in the order of the table', () => {
    expect(fieldExamples.map((example) => example.field)).toEqual(Object.keys(SEARCH_FIELDS));
    expect(TERM_FIELDS).toEqual(['id', 'type', 'fingerprint', 'created_by', 'modified_by']);
    expect(DATE_FIELDS).toEqual(['created_at', 'modified_at']);
    expect(FIELD_NAMES).toBe(
      'id, type, fingerprint, container, data, metadata.<key>, created_by, created_at, modified_by or modified_at',
    );
  });

  it.each(TERM_FIELDS)('a range on the term field %s is refused, naming the date fields', (field) => {
    expect(() => parseQuery(`${field}:[a TO b]`)).toThrow(
      'expected a single value (ranges are only allowed on created_at and modified_at)',
    );
  });

  it('the query arbitrary draws every field and every kind of the table', () => {
    const fields = new Set<string>();
    const kinds = new Set<string>();
    const collect = (node: QueryNode): void => {
      if (node.kind === 'and' || node.kind === 'or') return node.children.forEach(collect);
      if (node.kind === 'not') return collect(node.child);
      kinds.add(node.kind);
      if (node.kind === 'term' || node.kind === 'date') fields.add(node.field);
    };
    fc.sample(queryNodeArbitrary(), { numRuns: 500, seed: 1 }).forEach(collect);
    expect([...fields].sort()).toEqual([...TERM_FIELDS, ...DATE_FIELDS].sort());
    const tableKinds = Object.values(SEARCH_FIELDS).map((spec: SearchFieldSpec) => spec.kind);
    expect([...kinds].sort()).toEqual([...new Set(tableKinds)].sort());
  });
});

// ---- Checked by the type checker (`npm run lint`), not by Jest: a new field makes every keyed map incomplete. ----

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

describe('the field types follow the table', () => {
  it('derives TermField and DateField from the kinds in SEARCH_FIELDS', () => {
    const exact: [
      Equal<TermField, 'id' | 'type' | 'fingerprint' | 'created_by' | 'modified_by'>,
      Equal<DateField, 'created_at' | 'modified_at'>,
      Equal<SearchFieldOfKind<'container' | 'data'>, 'container' | 'data'>,
    ] = [true, true, true];
    expect(exact).toEqual([true, true, true]);
  });

  it('makes a map keyed by the date fields incomplete as soon as the table gains a date field', () => {
    // What the compilers' maps look like (DATE_COLUMNS in sqlite-token-sql.ts, DATE_ATTRIBUTES in meili-token-filter.ts).
    const columns = { created_at: 't.created_at_ms', modified_at: 't.modified_at_ms' };
    columns satisfies Record<DateField, string>;
    type DateFieldIfTableHad<Entry extends Record<string, SearchFieldSpec>> = SearchFieldOfKind<'date', typeof SEARCH_FIELDS & Entry>;
    // @ts-expect-error -- with expires_at in the table, the map misses it: the type checker points at every such map.
    columns satisfies Record<DateFieldIfTableHad<{ expires_at: { kind: 'date' } }>, string>;
    // A field of another kind leaves the date maps alone.
    columns satisfies Record<DateFieldIfTableHad<{ owner: { kind: 'term'; case: 'insensitive' } }>, string>;
    expect(Object.keys(columns)).toEqual(DATE_FIELDS);
  });
});
