import type { QueryNode } from './query.ast';
import { parseQuery } from './query.parse';
import { serializeQuery } from './query.serialize';

// Each case: a query, then its canonical text. The canonical text must parse back to the same AST.
const canonical: [query: string, serialized: string][] = [
  ['type:Card_Number', 'type:"card_number"'],
  ['fingerprint:8FkQz3vP', 'fingerprint:"8FkQz3vP"'],
  ['id:ABC', 'id:"abc"'],
  ['created_by:x OR modified_by:y', 'created_by:"x" OR modified_by:"y"'],
  ['metadata.Note:"say \\"hi\\" \\\\ bye"', 'metadata.note:"say \\"hi\\" \\\\ bye"'],
  ['data:123-45-6789', 'data:"123-45-6789"'],
  ['container:/PII/*', 'container:"/pii/*"'],
  ['container:/', 'container:"/"'],
  ['type:a AND type:b AND type:c', 'type:"a" AND type:"b" AND type:"c"'],
  ['type:a OR type:b AND type:c', 'type:"a" OR type:"b" AND type:"c"'],
  ['(type:a OR type:b) AND type:c', '(type:"a" OR type:"b") AND type:"c"'],
  ['type:a -type:b', 'type:"a" AND NOT type:"b"'],
  ['!(type:a OR type:b)', 'NOT (type:"a" OR type:"b")'],
  ['-(type:a AND type:b)', 'NOT (type:"a" AND type:"b")'],
  ['NOT !type:a', 'NOT NOT type:"a"'],
  ['NOT type:a OR type:b', 'NOT type:"a" OR type:"b"'],
  ['created_at:2024-01-01', 'created_at:[2024-01-01T00:00:00.000Z TO 2024-01-02T00:00:00.000Z}'],
  ['created_at:{2024-01-01 TO 2024-01-31]', 'created_at:[2024-01-02T00:00:00.000Z TO 2024-02-01T00:00:00.000Z}'],
  ['created_at:2024-01-01T10:00:00Z', 'created_at:[2024-01-01T10:00:00.000Z TO 2024-01-01T10:00:00.001Z}'],
  ['modified_at:[2024-01-01 TO *]', 'modified_at:[2024-01-01T00:00:00.000Z TO *]'],
  ['created_at:{* TO 2024-01-31}', 'created_at:[* TO 2024-01-31T00:00:00.000Z}'],
  ['created_at:[* TO *]', 'created_at:[* TO *]'],
  ['created_at:[2024-02-01 TO 2024-01-01]', 'created_at:[2024-02-01T00:00:00.000Z TO 2024-01-02T00:00:00.000Z}'],
  ['created_at:0000-01-01', 'created_at:[0000-01-01T00:00:00.000Z TO 0000-01-02T00:00:00.000Z}'],
  // One past the end of 9999 has no 4-digit spelling, so it is written as the bound before it.
  ['created_at:{9999-12-31 TO *}', 'created_at:{9999-12-31T23:59:59.999Z TO *]'],
  ['created_at:[* TO 9999-12-31]', 'created_at:[* TO 9999-12-31T23:59:59.999Z]'],
  ['created_at:9999-12-31T23:59:59.999Z', 'created_at:[9999-12-31T23:59:59.999Z TO 9999-12-31T23:59:59.999Z]'],
];

describe('serializeQuery', () => {
  it.each(canonical)('%s', (query, serialized) => {
    const ast = parseQuery(query);
    expect(serializeQuery(ast)).toBe(serialized);
    expect(parseQuery(serialized)).toEqual(ast);
  });

  it('null is the empty query', () => {
    expect(serializeQuery(null)).toBe('');
    expect(parseQuery(serializeQuery(null))).toBeNull();
  });

  it('an and nested in an and comes back flattened', () => {
    const a: QueryNode = { kind: 'term', field: 'type', value: 'a' };
    const nested: QueryNode = { kind: 'and', children: [{ kind: 'and', children: [a, a] }, a] };
    expect(parseQuery(serializeQuery(nested))).toEqual({ kind: 'and', children: [a, a, a] });
  });

  it('an instant no query can name is refused', () => {
    expect(() => serializeQuery({ kind: 'date', field: 'created_at', gte: -1e15, lt: null })).toThrow(RangeError);
  });
});
