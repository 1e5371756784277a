// The pure parts of the Meilisearch formula read model; everything that talks to a server is in
// test/contract/formula-read-model.meili.spec.ts.
import fc from 'fast-check';
import { formulaNameMatcher, type FormulaDocument } from '@vault/application';
import {
  formulaNameGrams,
  formulaNarrowingFilter,
  formulaNarrowingValues,
  formulaSortKey,
  formulaVisibilityFilter,
  meiliFormulasCollection,
} from './meili-formulas';

const gram = (value: string) => `name_grams = "${value}"`;

describe('formulaNarrowingFilter', () => {
  it.each<[string | null, string[]]>([
    [null, []],
    ['', []],
    ['*', []],
    ['***', []],
    // Shorter than a gram and not anchored: nothing to narrow, the adapter filters every visible formula itself.
    ['pa', []],
    ['%', []],
    ['**x**', []],
    ['pay', [gram('007000610079')]],
    ['PAY', [gram('007000610079')]],
    ['pay*', [gram('^007000610079'), gram('007000610079')]],
    ['*pay', [gram('$007000610079'), gram('007000610079')]],
    ['p*', [gram('^0070')]],
    ['Ab*', [gram('^00610062')]],
    ['tok*load', [gram('^0074006f006b'), gram('$006f00610064'), gram('0074006f006b'), gram('006c006f0061'), gram('006f00610064')]],
    // The pattern is lower-cased as a whole, like formulaNameMatcher does: the Σ before `*` becomes a final ς.
    ['ΟΔΟΣ*', [gram('^03bf03b403bf'), gram('03bf03b403bf'), gram('03b403bf03c2')]],
    // Quotes and backslashes never reach the filter: values are hex, and quoted anyway.
    ['a"b', [gram('006100220062')]],
    ['x" OR owner EXISTS', expect.arrayContaining([gram('007800220020')])],
  ])('%j narrows with %j', (pattern, filter) => {
    expect(formulaNarrowingFilter(pattern)).toEqual(filter);
  });

  it('keeps at most 8 conditions however long the pattern', () => {
    expect(formulaNarrowingFilter('abcdefghijklmnopqrstuvwxyz')).toHaveLength(8);
  });
});

describe('formulaNarrowingValues against formulaNameMatcher', () => {
  // Few letters, so random names and patterns match often; plus characters whose lower-casing is special (İ, Σ, ß),
  // compatibility forms Meilisearch would rewrite (ﬁ), surrogate halves and the characters filters care about.
  const letter = fc.constantFrom(
    ...['a', 'A', 'b', 'B', 'Σ', 'σ', 'ς', 'İ', 'i', '\u0307', 'ß', 'ﬁ', '\ud83d', '\ude00', ' ', '%', '"', '\\'],
  );
  const text = fc.array(letter, { maxLength: 10 }).map((letters) => letters.join(''));
  // A pattern cut from a name: some runs replaced by `*`, maybe upper-cased, so that it usually matches.
  const cutFrom = (name: string) =>
    fc
      .tuple(fc.array(fc.boolean(), { minLength: name.length, maxLength: name.length }), fc.boolean(), fc.boolean())
      .map(([starred, upper, contains]) => {
        const pattern = contains ? name.slice(1, -1) : [...name].map((c, i) => (starred[i] ? '*' : c)).join('');
        return upper ? pattern.toUpperCase() : pattern;
      });
  const nameAndCut = text.chain((name) => fc.tuple(fc.constant(name), cutFrom(name)));

  const narrowsToASuperset = (name: string, pattern: string) => {
    if (!formulaNameMatcher(pattern)(name)) return;
    const grams = new Set(formulaNameGrams(name));
    for (const value of formulaNarrowingValues(pattern)) expect(grams.has(value)).toBe(true);
  };

  it('never excludes a name the matcher accepts (patterns cut from the name)', () => {
    fc.assert(fc.property(nameAndCut, ([name, pattern]) => narrowsToASuperset(name, pattern)), { numRuns: 2000 });
  });

  it('never excludes a name the matcher accepts (unrelated patterns)', () => {
    const pattern = fc.array(fc.oneof(letter, fc.constant('*')), { maxLength: 6 }).map((letters) => letters.join(''));
    fc.assert(fc.property(text, pattern, narrowsToASuperset), { numRuns: 2000 });
  });

  it('uses only lower-case hex and the two anchors, which Meilisearch stores and compares unchanged', () => {
    fc.assert(
      fc.property(text, (name) => {
        for (const value of [...formulaNameGrams(name), ...formulaNarrowingValues(name)]) {
          expect(value).toMatch(/^[$^]?(?:[0-9a-f]{4})+$/);
        }
      }),
    );
  });
});

describe('formulaSortKey', () => {
  const utf8 = (name: string) => Buffer.from(name.toLowerCase(), 'utf8');

  it('orders like the UTF-8 bytes of the lower-cased name (the embedded adapter order)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 40 }), (a, b) => {
        const [ka, kb] = [formulaSortKey(a), formulaSortKey(b)];
        expect(Math.sign(ka < kb ? -1 : ka > kb ? 1 : 0)).toBe(Math.sign(Buffer.compare(utf8(a), utf8(b))));
      }),
    );
  });

  it('ignores case, and stays within 400 ASCII characters', () => {
    expect(formulaSortKey('Mask Email')).toBe(formulaSortKey('MASK email'));
    expect(formulaSortKey('🔐'.repeat(200))).toHaveLength(400);
    expect(formulaSortKey('🔐'.repeat(200))).toMatch(/^[0-9a-f]+$/);
  });
});

describe('formulaVisibilityFilter', () => {
  it.each([
    ['ab', '(owner = "official" OR owner = "00610062")'],
    // Hex leaves nothing of a quote, an operator or a case difference for the filter parser to see.
    [
      'a" OR owner EXISTS',
      '(owner = "official" OR owner = "006100220020004f00520020006f0077006e006500720020004500580049005300540053")',
    ],
    ['AB', '(owner = "official" OR owner = "00410042")'],
  ])('matches official formulas or the hex-encoded tenant %j', (tenantId, filter) => {
    expect(formulaVisibilityFilter(tenantId)).toBe(filter);
  });

  it('never lets a tenant id reach the official marker', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (tenantId) => {
        expect(formulaVisibilityFilter(tenantId)).toMatch(/^\(owner = "official" OR owner = "(?:[0-9a-f]{4})*"\)$/);
      }),
    );
  });
});

describe('meiliFormulasCollection', () => {
  const official: FormulaDocument = {
    id: '0b6f3c1e-8d0a-4c55-9a43-2f1f4f0f2b10',
    tenant_id: null,
    name: 'Pay',
    description: null,
    type: 'official',
    status: 'verified',
    icon: null,
    code: 'module.exports = async (req) => req',
    configuration: [],
    request_parameters: [{ name: 'card.number', description: null, type: 'string', optional: false }],
    created_by: 'cli',
    created_at: '2024-05-01T10:00:00.000Z',
    modified_by: null,
    modified_at: null,
  };
  const tenantId = 'c0ffee00-0000-4000-8000-000000000001';
  const mine: FormulaDocument = { ...official, id: 'e7a1', tenant_id: tenantId, type: 'private', name: 'PAYMENT router' };
  const stored = (formula: FormulaDocument) =>
    meiliFormulasCollection.toDocument(formula.id, 3n, formula as unknown as Record<string, unknown>);

  it('marks an official formula with the official owner and keeps its raw tenant id and name', () => {
    expect(stored(official)).toMatchObject({
      id: official.id,
      _revision: 3,
      tenant_id: null,
      owner: 'official',
      name: 'Pay',
      name_sort: '706179',
    });
  });

  it('marks a private formula with its hex-encoded tenant id', () => {
    expect(stored(mine).tenant_id).toBe(tenantId);
    expect(formulaVisibilityFilter(tenantId)).toContain(`owner = "${stored(mine).owner as string}"`);
  });

  it('stores the heads, tails and runs of the lower-cased name', () => {
    expect(new Set(stored(official).name_grams as string[])).toEqual(
      new Set(['^0070', '^00700061', '^007000610079', '$0079', '$00610079', '$007000610079', '007000610079']),
    );
  });

  it('gives back the formula unchanged', () => {
    expect(meiliFormulasCollection.fromDocument(stored(mine))).toEqual(mine);
  });

  it('filters on owner, name grams and id, and sorts by name key then id', () => {
    expect(meiliFormulasCollection.settings).toEqual({
      filterableAttributes: ['owner', 'name_grams', 'id'],
      sortableAttributes: ['name_sort', 'id'],
    });
  });
});
