import type { DateField, QueryNode, TermField } from './query.ast';
import { MAX_QUERY_LENGTH, MAX_QUERY_TERMS, parseQuery } from './query.parse';

const term = (field: TermField, value: string): QueryNode => ({ kind: 'term', field, value });
const type = (value: string) => term('type', value);
const and = (...children: QueryNode[]): QueryNode => ({ kind: 'and', children });
const or = (...children: QueryNode[]): QueryNode => ({ kind: 'or', children });
const not = (child: QueryNode): QueryNode => ({ kind: 'not', child });
const container = (path: string, descendants = false): QueryNode => ({ kind: 'container', path, descendants });
const metadata = (key: string, value: string): QueryNode => ({ kind: 'metadata', key, value });
const data = (value: string): QueryNode => ({ kind: 'data', value });
const date = (gte: number | null, lt: number | null, field: DateField = 'created_at'): QueryNode => ({ kind: 'date', field, gte, lt });

const utc = (iso: string) => Date.parse(iso);
const JAN_1 = utc('2024-01-01T00:00:00Z');
const JAN_2 = utc('2024-01-02T00:00:00Z');
const JAN_31 = utc('2024-01-31T00:00:00Z');
const FEB_1 = utc('2024-02-01T00:00:00Z');
const TEN = utc('2024-01-01T10:00:00Z');
const ELEVEN = utc('2024-01-01T11:00:00Z');

describe('parseQuery: absent or blank queries match everything', () => {
  it.each([[''], ['   '], ['\t\n']])('%j', (query) => expect(parseQuery(query)).toBeNull());
  it('null', () => expect(parseQuery(null)).toBeNull());
  it('undefined', () => expect(parseQuery(undefined)).toBeNull());
});

describe('parseQuery: terms', () => {
  it.each<[string, QueryNode]>([
    ['type:card_number', type('card_number')],
    ['type:Card_Number', type('card_number')],
    ['id:0B9E3F5C-6F3C-4F7E-9D1A-2C4B6A8E0F11', term('id', '0b9e3f5c-6f3c-4f7e-9d1a-2c4b6a8e0f11')],
    ['fingerprint:8FkQz3vP', term('fingerprint', '8FkQz3vP')],
    ['created_by:App-One', term('created_by', 'app-one')],
    ['modified_by:APP-TWO', term('modified_by', 'app-two')],
    ['type:"card number"', type('card number')],
    ['metadata.note:"say \\"hi\\""', metadata('note', 'say "hi"')],
    ['metadata.path:"C:\\\\dir"', metadata('path', 'c:\\dir')],
    ['metadata.note:"what? ~fuzzy^boost (not) [range] {x} \\\\ AND"', metadata('note', 'what? ~fuzzy^boost (not) [range] {x} \\ and')],
    ['metadata.Customer:ACME', metadata('customer', 'acme')],
    ['metadata.a.B-c_9:x', metadata('a.b-c_9', 'x')],
    ['metadata.url:http://example.com:8080/x', metadata('url', 'http://example.com:8080/x')],
    ['metadata.note:"  spaced  "', metadata('note', '  spaced  ')],
    ['data:123-45-6789', data('123-45-6789')],
    ['data:"AbC-1"', data('abc-1')],
    ['type:"/card/"', type('/card/')],
    ['type:AND', type('and')],
    ['type:"NOT"', type('not')],
    ['type:TO', type('to')],
    ['type:-x', type('-x')],
    ['type:a!b', type('a!b')],
    ['type:a-b', type('a-b')],
    ['  type:a  ', type('a')],
  ])('%s', (query, expected) => expect(parseQuery(query)).toEqual(expected));
});

describe('parseQuery: containers', () => {
  it.each<[string, QueryNode]>([
    ['container:/pii/high/', container('/pii/high/')],
    ['container:"/pii/high/"', container('/pii/high/')],
    ['container:"/PII/High/*"', container('/pii/high/', true)],
    ['container:/pii/*', container('/pii/', true)],
    ['container:/', container('/')],
    ['container:"/"', container('/')],
    ['container:/*', container('/', true)],
    ['container:/a_b/c-d/0/', container('/a_b/c-d/0/')],
  ])('%s', (query, expected) => expect(parseQuery(query)).toEqual(expected));
});

describe('parseQuery: operators and precedence', () => {
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(type);
  it.each<[string, QueryNode]>([
    ['type:a AND type:b', and(a, b)],
    ['type:a OR type:b', or(a, b)],
    ['NOT type:a', not(a)],
    ['!type:a', not(a)],
    ['-type:a', not(a)],
    ['! type:a', not(a)],
    ['NOT(type:a)', not(a)],
    ['!(type:a OR type:b)', not(or(a, b))],
    ['-(type:a)', not(a)],
    ['NOT NOT type:a', not(not(a))],
    ['!-type:a', not(not(a))],
    ['type:a NOT type:b', and(a, not(b))],
    ['type:a -type:b', and(a, not(b))],
    ['type:a !type:b', and(a, not(b))],
    ['type:a AND NOT type:b', and(a, not(b))],
    ['type:a OR NOT type:b', or(a, not(b))],
    ['type:a OR type:b AND type:c', or(a, and(b, c))],
    ['type:a AND type:b OR type:c', or(and(a, b), c)],
    ['(type:a OR type:b) AND type:c', and(or(a, b), c)],
    ['NOT type:a AND type:b', and(not(a), b)],
    ['NOT type:a OR type:b', or(not(a), b)],
    ['NOT (type:a AND type:b)', not(and(a, b))],
    ['type:a AND type:b AND type:c', and(a, b, c)],
    ['(type:a AND type:b) AND (type:c AND type:d)', and(a, b, c, d)],
    ['type:a OR (type:b OR type:c)', or(a, b, c)],
    ['type:a OR type:b AND type:c OR type:d', or(a, and(b, c), d)],
    ['((type:a))', a],
    ['(type:a)AND(type:b)', and(a, b)],
  ])('%s', (query, expected) => expect(parseQuery(query)).toEqual(expected));

  it.each<[string, QueryNode]>([['type:a\tAND\ntype:b', and(a, b)]])('%j', (query, expected) =>
    expect(parseQuery(query)).toEqual(expected),
  );
});

describe('parseQuery: dates (UTC, half-open [gte, lt))', () => {
  it.each<[string, QueryNode]>([
    ['created_at:2024-01-01', date(JAN_1, JAN_2)],
    ['created_at:"2024-01-01"', date(JAN_1, JAN_2)],
    ['modified_at:2024-01-01', date(JAN_1, JAN_2, 'modified_at')],
    ['created_at:2024-01-01T10:00:00Z', date(TEN, TEN + 1)],
    ['created_at:2024-01-01T10:00Z', date(TEN, TEN + 1)],
    ['created_at:2024-01-01T10:00:00.5Z', date(TEN + 500, TEN + 501)],
    ['created_at:2024-01-01T10:00:00.123Z', date(TEN + 123, TEN + 124)],
    ['created_at:2024-01-01T10:00:00+00:00', date(TEN, TEN + 1)],
    ['created_at:[2024-01-01 TO 2024-01-31]', date(JAN_1, FEB_1)],
    ['created_at:{2024-01-01 TO 2024-01-31}', date(JAN_2, JAN_31)],
    ['created_at:[2024-01-01 TO 2024-01-31}', date(JAN_1, JAN_31)],
    ['created_at:{2024-01-01 TO 2024-01-31]', date(JAN_2, FEB_1)],
    ['created_at:[2024-01-01T10:00:00Z TO 2024-01-01T11:00:00Z]', date(TEN, ELEVEN + 1)],
    ['created_at:{2024-01-01T10:00:00Z TO 2024-01-01T11:00:00Z}', date(TEN + 1, ELEVEN)],
    ['created_at:[2024-01-01 TO *]', date(JAN_1, null)],
    ['created_at:{2024-01-01 TO *}', date(JAN_2, null)],
    ['created_at:[* TO 2024-01-31]', date(null, FEB_1)],
    ['created_at:{* TO 2024-01-31}', date(null, JAN_31)],
    ['created_at:[* TO *]', date(null, null)],
    ['modified_at:[* TO *]', date(null, null, 'modified_at')],
    ['created_at:["2024-01-01" TO "2024-01-31T00:00:00Z"]', date(JAN_1, JAN_31 + 1)],
    ['created_at:[ 2024-01-01   TO   2024-01-31 ]', date(JAN_1, FEB_1)],
    ['created_at:2024-02-29', date(utc('2024-02-29T00:00:00Z'), utc('2024-03-01T00:00:00Z'))],
    ['created_at:2000-02-29', date(utc('2000-02-29T00:00:00Z'), utc('2000-03-01T00:00:00Z'))],
    ['created_at:0000-01-01', date(utc('0000-01-01T00:00:00Z'), utc('0000-01-02T00:00:00Z'))],
    ['created_at:0099-12-31T23:59:59.999Z', date(utc('0099-12-31T23:59:59.999Z'), utc('0100-01-01T00:00:00Z'))],
    ['created_at:9999-12-31', date(utc('9999-12-31T00:00:00Z'), utc('9999-12-31T00:00:00Z') + 86_400_000)],
    // An empty or backwards range is allowed and matches nothing, as in Lucene.
    ['created_at:{2024-01-01 TO 2024-01-02}', date(JAN_2, JAN_2)],
    ['created_at:[2024-02-01 TO 2024-01-01]', date(FEB_1, JAN_2)],
    ['created_at:[2024-01-01 TO 2024-01-31] AND type:a', and(date(JAN_1, FEB_1), type('a'))],
  ])('%s', (query, expected) => expect(parseQuery(query)).toEqual(expected));
});

describe('parseQuery: limits are inclusive', () => {
  it(`a query of exactly ${MAX_QUERY_LENGTH} characters`, () => {
    const query = `type:${'a'.repeat(MAX_QUERY_LENGTH - 5)}`;
    expect(parseQuery(query)).toEqual(type('a'.repeat(MAX_QUERY_LENGTH - 5)));
  });

  it(`a query of exactly ${MAX_QUERY_TERMS} terms`, () => {
    const query = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `type:t${i}`).join(' OR ');
    expect(parseQuery(query)).toEqual(or(...Array.from({ length: MAX_QUERY_TERMS }, (_, i) => type(`t${i}`))));
  });

  it('32 levels of nesting', () => {
    expect(parseQuery(`${'('.repeat(16)}${'NOT '.repeat(16)}type:a${')'.repeat(16)}`)).toBeTruthy();
  });
});
