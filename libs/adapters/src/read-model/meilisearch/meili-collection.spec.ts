import fc from 'fast-check';
import { epochMs, MAX_TOTAL_HITS, meiliDocumentIndex, meiliIndexSettings, meiliQuote } from './meili-collection';

/** Reads one double-quoted literal the way Meilisearch's filter parser does: `\x` stands for `x`. */
function readLiteral(source: string): { value: string; rest: string } {
  if (source[0] !== '"') throw new Error('not a literal');
  let value = '';
  for (let i = 1; i < source.length; i++) {
    if (source[i] === '\\') value += source[++i];
    else if (source[i] === '"') return { value, rest: source.slice(i + 1) };
    else value += source[i];
  }
  throw new Error('unterminated literal');
}

describe('meiliQuote', () => {
  it.each([
    ['plain', '"plain"'],
    ['', '""'],
    ['say "hi"', '"say \\"hi\\""'],
    ['C:\\dir\\', '"C:\\\\dir\\\\"'],
    ['\\"', '"\\\\\\""'],
    ['x" OR tenant_id EXISTS OR id = "y', '"x\\" OR tenant_id EXISTS OR id = \\"y"'],
  ])('%j becomes %s', (value, literal) => {
    expect(meiliQuote(value)).toBe(literal);
  });

  it('always yields exactly one literal that reads back as the original value', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (value) => {
        expect(readLiteral(meiliQuote(value))).toEqual({ value, rest: '' });
      }),
    );
  });
});

describe('meiliDocumentIndex', () => {
  const notes = meiliDocumentIndex(
    'notes',
    { owner: (d) => d.owner as string, created_at_ms: (d) => epochMs(d.created_at) },
    { filterableAttributes: ['owner'], sortableAttributes: ['created_at_ms'] },
  );
  const note = { id: 'n-1', owner: 'ann', created_at: '2024-05-01T10:00:00.000Z', body: { nested: [1, null, 'x'] }, gone: null };

  it('stores the document verbatim as JSON next to its id, revision and extracted fields', () => {
    expect(notes.toDocument('n-1', 7n, note)).toEqual({
      id: 'n-1',
      _revision: 7,
      doc: JSON.stringify(note),
      owner: 'ann',
      created_at_ms: Date.UTC(2024, 4, 1, 10),
    });
  });

  it('gives back exactly the stored document', () => {
    expect(notes.fromDocument(notes.toDocument('n-1', 0n, note))).toEqual(note);
  });

  it.each(['id', '_revision', 'doc', '_geo'])('refuses the reserved field name %s', (field) => {
    expect(() => meiliDocumentIndex('x', { [field]: () => null }, { filterableAttributes: [], sortableAttributes: [] })).toThrow(
      /reserved/,
    );
  });
});

describe('meiliIndexSettings', () => {
  const settings = meiliIndexSettings({ filterableAttributes: ['tenant_id', 'id'], sortableAttributes: ['created_at_ms', 'id'] });

  it('makes ids filterable (load looks documents up by id) without repeating them', () => {
    expect(settings.filterableAttributes).toEqual(['id', 'tenant_id']);
    expect(settings.sortableAttributes).toEqual(['created_at_ms', 'id']);
  });

  it('lifts the 1000-hit cap so totals and deep pages are exact, and turns off typo tolerance', () => {
    expect(settings.pagination).toEqual({ maxTotalHits: MAX_TOTAL_HITS });
    expect(MAX_TOTAL_HITS).toBeGreaterThanOrEqual(1_000_000_000);
    expect(settings.typoTolerance).toEqual({ enabled: false });
  });

  it('lets an explicit sort decide the order', () => {
    expect(settings.rankingRules?.[0]).toBe('sort');
  });
});

describe('epochMs', () => {
  it.each([
    ['2024-05-01T10:00:00.000Z', Date.UTC(2024, 4, 1, 10)],
    ['not a date', null],
    [undefined, null],
    [42, null],
  ])('%j → %j', (value, ms) => {
    expect(epochMs(value)).toBe(ms);
  });
});
