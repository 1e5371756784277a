import type { TokenType } from '../tokens/token-types';
import { evaluateQuery } from './query.evaluate';
import { parseQuery } from './query.parse';
import type { SearchableToken } from './token-terms';

const aToken = (overrides: Partial<SearchableToken> = {}): SearchableToken => ({
  id: '0b9e3f5c-6f3c-4f7e-9d1a-2c4b6a8e0f11',
  type: 'social_security_number',
  fingerprint: '8FkQz3vP',
  containers: ['/pii/high/', '/archive/2024/'],
  metadata: { Customer: 'ACME Corp', region: 'eu' },
  search_hashes: ['123-45-6789', '123456789', '6789'],
  created_by: 'app-one',
  created_at: '2024-01-31T23:59:59.999Z',
  modified_by: null,
  modified_at: null,
  ...overrides,
});

// Each case: a query, then whether it matches the token.
const matching = (token: SearchableToken, cases: [query: string, matches: boolean][]) =>
  it.each(cases)('%s', (query, expected) => expect(evaluateQuery(parseQuery(query), token)).toBe(expected));

describe('evaluateQuery on a never-modified social_security_number token', () => {
  matching(aToken(), [
    ['', true],
    ['id:0B9E3F5C-6F3C-4F7E-9D1A-2C4B6A8E0F11', true],
    ['id:0b9e3f5c', false],
    ['type:SOCIAL_SECURITY_NUMBER', true],
    ['type:card_number', false],
    ['fingerprint:8FkQz3vP', true],
    ['fingerprint:8fkqz3vp', false],
    ['created_by:APP-ONE', true],
    ['created_by:app', false],
    ['modified_by:app-one', false],
    ['NOT modified_by:app-one', true],
    ['container:/pii/high/', true],
    ['container:/PII/HIGH/', true],
    ['container:/pii/', false],
    ['container:/pii/*', true],
    ['container:/pii/high/*', true],
    ['container:/pii/high/low/*', false],
    ['container:/*', true],
    ['container:/', false],
    ['container:/archive/2024/', true],
    ['metadata.customer:"acme corp"', true],
    ['metadata.CUSTOMER:"ACME CORP"', true],
    ['metadata.customer:acme', false],
    ['metadata.region:EU', true],
    ['metadata.missing:eu', false],
    ['data:6789', true],
    ['data:123456789', true],
    ['data:123-45-6789', true],
    ['data:12345', false],
    ['created_at:2024-01-31', true],
    ['created_at:2024-02-01', false],
    ['created_at:[2024-01-01 TO 2024-01-31]', true],
    ['created_at:[2024-01-01 TO 2024-01-31}', false],
    ['created_at:{2024-01-30 TO *}', true],
    ['created_at:{2024-01-31 TO *}', false],
    ['created_at:[2024-01-31T23:59:59.999Z TO *]', true],
    ['created_at:{2024-01-31T23:59:59.999Z TO *]', false],
    ['created_at:[* TO 2024-01-31T23:59:59.999Z]', true],
    ['created_at:[* TO 2024-01-31T23:59:59.999Z}', false],
    ['created_at:2024-01-31T23:59:59.999Z', true],
    ['created_at:2024-01-31T23:59:59.998Z', false],
    ['created_at:[* TO *]', true],
    ['created_at:[2024-02-01 TO 2024-01-01]', false],
    ['modified_at:[* TO *]', false],
    ['NOT modified_at:[* TO *]', true],
    ['type:card_number OR data:6789', true],
    ['type:token AND data:6789', false],
    ['NOT type:card_number', true],
    ['-container:/pci/*', true],
    ['type:social_security_number NOT container:/pii/*', false],
    ['(type:card_number OR type:social_security_number) AND metadata.region:eu', true],
  ]);
});

describe('evaluateQuery on a modified card_number token', () => {
  matching(
    aToken({
      type: 'card_number',
      containers: ['/pci/high/'],
      search_hashes: ['4242'],
      modified_by: 'App-Two',
      modified_at: '2024-02-29T12:30:00.000Z',
    }),
    [
      ['data:4242', false],
      ['modified_by:app-two', true],
      ['modified_at:2024-02-29', true],
      ['modified_at:[* TO *]', true],
      ['modified_at:{2024-02-29T12:30:00Z TO *}', false],
      ['container:/pci/*', true],
    ],
  );
});

describe('evaluateQuery: data terms match only types that support data search', () => {
  it.each<[TokenType, boolean]>([
    ['token', true],
    ['employer_id_number', true],
    ['social_security_number', true],
    ['card_number', false],
  ])('data:abc-1 on a %s token', (type, expected) => {
    expect(evaluateQuery(parseQuery('data:abc-1'), aToken({ type, search_hashes: ['AbC-1'] }))).toBe(expected);
  });
});
