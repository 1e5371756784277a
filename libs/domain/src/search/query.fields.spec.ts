import fc from 'fast-check';
import type { QueryNode } from './query.ast';
import { queryNodeArbitrary } from './query.arbitrary';
import { evaluateQuery } from './query.evaluate';
import { fieldExamples, matchingToken, otherToken } from './query.field-examples';
import {
  DATE_FIELDS,
  type DateField,
  listNames,
  SEARCH_FIELDS,
  type SearchFieldKind,
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
  const ofKind = (kind: SearchFieldKind) =>
    Object.entries(SEARCH_FIELDS).flatMap(([name, spec]: [string, SearchFieldSpec]) => (spec.kind === kind ? [name] : []));

  it('name the fields of each kind in the order of the table', () => {
    expect(TERM_FIELDS).toEqual(ofKind('term'));
    expect(DATE_FIELDS).toEqual(ofKind('date'));
    expect(fieldExamples.map((example) => example.field)).toEqual(Object.keys(SEARCH_FIELDS));
  });

  it('name every field in the messages for an unknown field and a range on a non-date field', () => {
    expect(() => parseQuery('foo:bar')).toThrow(`expected one of ${listNames(Object.keys(SEARCH_FIELDS), 'or')}`);
    expect(() => parseQuery('type:[a TO b]')).toThrow(`ranges are only allowed on ${listNames(DATE_FIELDS, 'and')})`);
  });

  it.each([
    [[], ''],
    [['a'], 'a'],
    [['a', 'b'], 'a or b'],
    [['a', 'b', 'c'], 'a, b or c'],
  ])('lists %j as %j', (names, text) => expect(listNames(names, 'or')).toBe(text));

  it.each(TERM_FIELDS)('a range on the term field %s is refused', (field) => {
    expect(() => parseQuery(`${field}:[a TO b]`)).toThrow('Unsupported range');
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
  it('collects the fields of a kind, whatever the table holds', () => {
    type Table = {
      a: { kind: 'term'; case: 'exact' };
      b: { kind: 'date' };
      c: { kind: 'term'; case: 'insensitive' };
      d: { kind: 'date' };
      e: { kind: 'container' };
    };
    const exact: [
      Equal<SearchFieldOfKind<'term', Table>, 'a' | 'c'>,
      Equal<SearchFieldOfKind<'date', Table>, 'b' | 'd'>,
      Equal<SearchFieldOfKind<'data', Table>, never>,
      Equal<TermField, SearchFieldOfKind<'term'>>,
      Equal<DateField, SearchFieldOfKind<'date'>>,
    ] = [true, true, true, true, true];
    expect(exact).toEqual([true, true, true, true, true]);
  });

  it('makes every map keyed by the date fields incomplete as soon as the table gains a date field', () => {
    // A map complete for today's table, as TOKEN_TERMS and each adapter's map of date fields are.
    const columns = Object.fromEntries(DATE_FIELDS.map((field) => [field, `${field}_ms`])) as Record<DateField, string>;
    type DateFieldIfTableHad<Entry extends Record<string, SearchFieldSpec>> = SearchFieldOfKind<'date', typeof SEARCH_FIELDS & Entry>;
    // @ts-expect-error -- with one more date field in the table, the map misses it: the type checker points at every such map.
    columns satisfies Record<DateFieldIfTableHad<{ a_new_date: { kind: 'date' } }>, string>;
    // A field of another kind leaves the date maps alone.
    columns satisfies Record<DateFieldIfTableHad<{ a_new_term: { kind: 'term'; case: 'insensitive' } }>, string>;
    expect(Object.keys(columns)).toEqual(DATE_FIELDS);
  });
});
