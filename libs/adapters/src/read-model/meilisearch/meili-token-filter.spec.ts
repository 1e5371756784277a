// The compiler's output for every node kind, and the flat layout it relies on. Pure: no server.
// meili-token-filter.semantics.spec.ts checks what these filters mean against the reference evaluator.
import fc from 'fast-check';
import type { TokenDocument } from '@vault/application';
import { parseQuery, type QueryNode } from '@vault/domain';
import { compileTokenFilter, flattenToken, meiliExactKey, meiliIdSortKey, meiliNumber } from './meili-token-filter';

// `field = "<key of parts>"`, the shape of every string term.
const is = (field: string, ...parts: string[]) => `${field} = "${meiliExactKey(...parts)}"`;
const DATA_TYPES = `type_x IN ["${meiliExactKey('token')}", "${meiliExactKey('social_security_number')}", "${meiliExactKey('employer_id_number')}"]`;
const ms = (iso: string) => `"${Date.parse(iso)}"`;

describe('compileTokenFilter', () => {
  it.each<[string, string]>([
    // Case-insensitive terms compare lower-cased keys; fingerprints keep their case.
    ['id:0B9E3F5C-6F3C-4F7E-9D1A-2C4B6A8E0F11', is('id_x', '0b9e3f5c-6f3c-4f7e-9d1a-2c4b6a8e0f11')],
    ['type:CARD_NUMBER', is('type_x', 'card_number')],
    ['fingerprint:FpSsn', is('fingerprint_x', 'FpSsn')],
    ['created_by:App-1', is('created_by_x', 'app-1')],
    ['modified_by:App-1', is('modified_by_x', 'app-1')],
    // Exact containers against the containers, `*` against every container's `/`-ended prefixes.
    ['container:"/PII/high/"', is('containers_x', '/pii/high/')],
    ['container:"/pii/*"', is('container_prefixes_x', '/pii/')],
    ['container:/*', is('container_prefixes_x', '/')],
    ['metadata.Customer:ACME', is('metadata_x', 'customer', 'acme')],
    ['metadata.a.b:"say \\"hi\\""', is('metadata_x', 'a.b', 'say "hi"')],
    ['data:ABC-1', `${DATA_TYPES} AND ${is('search_hashes_x', 'abc-1')}`],
    // Half-open [gte, lt) ranges of epoch ms; `[* TO *]` asks for the date to be there.
    [
      'created_at:[2024-01-01 TO 2024-01-31]',
      `created_at_ms >= ${ms('2024-01-01T00:00:00Z')} AND created_at_ms < ${ms('2024-02-01T00:00:00Z')}`,
    ],
    ['created_at:{2024-01-01 TO *]', `created_at_ms >= ${ms('2024-01-02T00:00:00Z')}`],
    ['modified_at:[* TO 2024-03-01T12:00:00Z}', `modified_at_ms < ${ms('2024-03-01T12:00:00Z')}`],
    ['created_at:2024-02-15', `created_at_ms >= ${ms('2024-02-15T00:00:00Z')} AND created_at_ms < ${ms('2024-02-16T00:00:00Z')}`],
    ['modified_at:[* TO *]', 'modified_at_ms EXISTS'],
    // Negative numbers are quoted like any value; the server parses the literal as a float.
    ['created_at:[0000-01-01 TO *]', 'created_at_ms >= "-62167219200000"'],
    // NOT takes an atom as it is and parenthesises anything else.
    ['NOT type:token', `NOT ${is('type_x', 'token')}`],
    ['-data:6789', `NOT (${DATA_TYPES} AND ${is('search_hashes_x', '6789')})`],
    ['!modified_at:[2024-01-01 TO *]', `NOT modified_at_ms >= ${ms('2024-01-01T00:00:00Z')}`],
    ['NOT (type:token OR type:card_number)', `NOT (${is('type_x', 'token')} OR ${is('type_x', 'card_number')})`],
    // AND and OR keep the AST's grouping with parentheses, never relying on the server's precedence.
    [
      'type:social_security_number OR type:employer_id_number AND container:"/pii/low/"',
      `${is('type_x', 'social_security_number')} OR (${is('type_x', 'employer_id_number')} AND ${is('containers_x', '/pii/low/')})`,
    ],
    [
      '(type:token OR type:card_number) AND metadata.customer:acme',
      `(${is('type_x', 'token')} OR ${is('type_x', 'card_number')}) AND ${is('metadata_x', 'customer', 'acme')}`,
    ],
    [
      'data:6789 NOT type:employer_id_number',
      `(${DATA_TYPES} AND ${is('search_hashes_x', '6789')}) AND NOT ${is('type_x', 'employer_id_number')}`,
    ],
    [
      'created_at:[2024-01-01 TO *] OR data:1',
      `created_at_ms >= ${ms('2024-01-01T00:00:00Z')} OR (${DATA_TYPES} AND ${is('search_hashes_x', '1')})`,
    ],
  ])('%s', (query, filter) => {
    expect(compileTokenFilter(parseQuery(query)!)).toBe(filter);
  });

  it('never lets a value into the filter as text: quotes, OR and brackets arrive as hex', () => {
    const filter = compileTokenFilter(parseQuery('metadata.a:"x\\" OR tenant_x EXISTS OR (id = \\"y"')!);
    expect(filter).toMatch(/^metadata_x = "x[0-9a-f.]+"$/);
  });

  it('refuses a descendants path that does not end with "/" rather than match too little', () => {
    const ast: QueryNode = { kind: 'container', path: '/pii', descendants: true };
    expect(() => compileTokenFilter(ast)).toThrow(/must end with "\/"/);
  });
});

describe('meiliExactKey', () => {
  it.each<[string[], string]>([
    [[''], 'x'],
    [['Ab'], 'x00410062'],
    [['a', 'b'], 'x0061.0062'],
    [['a.b'], 'x0061002e0062'],
    [['', ''], 'x.'],
  ])('%j → %s', (parts, key) => expect(meiliExactKey(...parts)).toBe(key));

  it('hashes values too long for a facet, keeping them apart from short ones', () => {
    expect(meiliExactKey('k', 'v'.repeat(500))).toMatch(/^h[0-9a-f]{64}$/);
    expect(meiliExactKey('k', 'v'.repeat(500))).not.toBe(meiliExactKey('k', 'v'.repeat(501)));
  });

  it('tells apart what UTF-8 would merge (lone surrogates) and what the server would fold (case, NFKD, spaces)', () => {
    const distinct = ['\uD800', '\uDBFF', 'A', 'a', 'ﬁ', 'fi', ' a', 'a '];
    expect(new Set(distinct.map((v) => meiliExactKey(v))).size).toBe(distinct.length);
  });

  it('is left unchanged by the normalization Meilisearch applies to filter values (trim, NFKD, lower-case)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 3 }), (parts) => {
        const key = meiliExactKey(...parts);
        expect(key.trim().normalize('NFKD').toLowerCase()).toBe(key);
        expect(Buffer.byteLength(key)).toBeLessThanOrEqual(468);
      }),
    );
  });
});

describe('meiliIdSortKey', () => {
  it("orders ids as JavaScript's < does, which Meilisearch's case-blind string sort would not", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
        const [x, y] = [meiliIdSortKey(a), meiliIdSortKey(b)];
        expect(Math.sign(x < y ? -1 : x > y ? 1 : 0)).toBe(a < b ? -1 : a > b ? 1 : 0);
      }),
    );
  });
});

describe('meiliNumber', () => {
  it.each([[0, '"0"'], [-62167219200000, '"-62167219200000"'], [253402300800000, '"253402300800000"']])('%p → %s', (n, text) =>
    expect(meiliNumber(n)).toBe(text),
  );
  it.each([NaN, Infinity])('refuses %p', (n) => expect(() => meiliNumber(n)).toThrow(RangeError));
});

describe('flattenToken', () => {
  const doc = {
    id: 'ID-1',
    tenant_id: 'Tenant-A',
    type: 'token',
    fingerprint: 'FpX',
    containers: ['/General/High/', '/pci/'],
    metadata: { Region: 'EU' },
    search_hashes: ['AB12'],
    created_by: 'App-1',
    created_at: '2024-01-15T10:00:00.000Z',
    modified_by: null,
    modified_at: null,
    expires_at: null,
  } as unknown as TokenDocument;

  it('holds a key per compared value, and leaves out what was never set', () => {
    expect(flattenToken(doc)).toEqual({
      tenant_id: 'Tenant-A',
      tenant_x: meiliExactKey('Tenant-A'),
      id_x: meiliExactKey('id-1'),
      id_sort: meiliIdSortKey('ID-1'),
      type_x: meiliExactKey('token'),
      fingerprint_x: meiliExactKey('FpX'),
      created_by_x: meiliExactKey('app-1'),
      containers_x: [meiliExactKey('/general/high/'), meiliExactKey('/pci/')],
      container_prefixes_x: ['/', '/general/', '/general/high/', '/pci/'].map((p) => meiliExactKey(p)),
      metadata_x: [meiliExactKey('region', 'eu')],
      search_hashes_x: [meiliExactKey('ab12')],
      created_at_ms: Date.UTC(2024, 0, 15, 10),
    });
  });

  it('adds the modification and expiry once they are set', () => {
    const modified = { ...doc, modified_by: 'App-2', modified_at: '2024-03-01T12:00:00Z', expires_at: '2025-01-01T00:00:00Z' };
    expect(flattenToken(modified)).toMatchObject({
      modified_by_x: meiliExactKey('app-2'),
      modified_at_ms: Date.UTC(2024, 2, 1, 12),
      expires_at_ms: Date.UTC(2025, 0, 1),
    });
  });
});
