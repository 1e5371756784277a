import { SEARCH_FIELDS, type SearchField } from './query.fields';
import { type SearchableToken, TOKEN_TERMS, tokenTerms, type TokenTerms } from './token-terms';

const aToken = (overrides: Partial<SearchableToken> = {}): SearchableToken => ({
  id: '0B9E3F5C-6F3C-4F7E-9D1A-2C4B6A8E0F11',
  type: 'social_security_number',
  fingerprint: '8FkQz3vP',
  containers: ['/PII/high/', '/pii/HIGH/', '/archive/'],
  metadata: { Customer: 'ACME', customer: 'acme', Region: 'EU' },
  search_hashes: ['AB12', 'ab12', 'cd34'],
  created_by: 'App-One',
  created_at: '2024-01-15T10:00:00.000Z',
  modified_by: null,
  modified_at: null,
  ...overrides,
});

describe('TOKEN_TERMS', () => {
  it('has exactly one entry for every field of SEARCH_FIELDS, in the same order', () => {
    expect(Object.keys(TOKEN_TERMS)).toEqual(Object.keys(SEARCH_FIELDS));
  });
});

describe('tokenTerms', () => {
  const terms = tokenTerms(aToken());

  it.each<[SearchField, TokenTerms[SearchField]]>([
    ['id', '0b9e3f5c-6f3c-4f7e-9d1a-2c4b6a8e0f11'],
    ['type', 'social_security_number'],
    // The one exact field keeps its case.
    ['fingerprint', '8FkQz3vP'],
    // Lower-cased, and each value once however often it was written.
    ['container', ['/pii/high/', '/archive/']],
    ['data', ['ab12', 'cd34']],
    [
      'metadata.<key>',
      [
        ['customer', 'acme'],
        ['region', 'eu'],
      ],
    ],
    ['created_by', 'app-one'],
    ['created_at', Date.UTC(2024, 0, 15, 10)],
    // Unset until the first update: no term, so no query value can match it.
    ['modified_by', null],
    ['modified_at', null],
  ])('%s', (field, expected) => {
    expect(terms[field]).toEqual(expected);
  });

  it('gives a modified token its modifier and time', () => {
    const modified = tokenTerms(aToken({ modified_by: 'App-Two', modified_at: '2024-03-01T12:00:00.000Z' }));
    expect([modified.modified_by, modified.modified_at]).toEqual(['app-two', Date.UTC(2024, 2, 1, 12)]);
  });

  it('keeps pairs of one key with different values apart', () => {
    expect(tokenTerms(aToken({ metadata: { Tier: 'Gold', tier: 'silver' } }))['metadata.<key>']).toEqual([
      ['tier', 'gold'],
      ['tier', 'silver'],
    ]);
  });
});
