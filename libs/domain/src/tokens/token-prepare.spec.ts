import { DomainError } from '../shared/errors';
import { aTokenContent, specEngine, TENANT, TOKEN_ID } from './token.builders';
import type { TokenRecord } from './token.state';
import type { JsonValue, TokenType } from './token-types';
import {
  draftOf,
  normalizeSearchValue,
  parseTokenData,
  prepareToken,
  searchIndexProblem,
  serializeTokenData,
  tokenContent,
  type TokenDraft,
} from './token-prepare';

const draft = (overrides: Partial<TokenDraft> = {}): TokenDraft => ({
  type: 'social_security_number',
  data: '123-45-6789',
  containers: ['/pii/high/'],
  metadata: {},
  search_indexes: ['{{ data }}', '{{ data | last4 }}'],
  fingerprint_expression: "{{ data | remove: '-' }}",
  mask: '{{ data | reveal_last: 4 }}',
  expires_at: null,
  ...overrides,
});

describe('searchIndexProblem: exactly one value', () => {
  it.each([
    ['123-45-6789', null],
    ['Ada Lovelace', null],
    ['Lovelace, Ada', null],
    ['{"a":1}', null],
    ['[not json', null],
    ['nullable', null],
    ['', 'empty value'],
    ['  \n\t', 'empty value'],
    ['null', 'null'],
    [' NULL ', 'null'],
    ['undefined', 'null'],
    ['["a","b"]', 'a list'],
    ['[]', 'a list'],
    ['["only"]', 'a list'],
  ])('%j → %j', (rendered, problem) => {
    const found = searchIndexProblem(rendered);
    if (problem === null) expect(found).toBeNull();
    else expect(found).toContain(problem);
  });
});

describe('normalizeSearchValue', () => {
  it.each([
    ['  ABC-12 ', 'abc-12'],
    ['Zoë', 'zoë'],
    ['Zoe\u0308', 'zoë'], // decomposed ë composes, so both spellings hash alike
  ])('%j → %j', (value, normalized) => {
    expect(normalizeSearchValue(value)).toBe(normalized);
  });
});

describe('plaintext', () => {
  it.each<[TokenType, JsonValue, string]>([
    ['social_security_number', '123-45-6789', '123-45-6789'],
    ['card_number', '4242424242424242', '4242424242424242'],
    ['token', 'text', '"text"'],
    ['token', { a: [1, true, null] }, '{"a":[1,true,null]}'],
    ['token', 42, '42'],
  ])('%s %j is sealed as %j and revealed back', (type, data, plaintext) => {
    expect(serializeTokenData(type, data)).toBe(plaintext);
    expect(parseTokenData(type, plaintext)).toEqual(data);
  });
});

describe('prepareToken', () => {
  it('evaluates fingerprint, mask and indexes', () => {
    expect(prepareToken(draft(), specEngine)).toEqual({
      plaintext: '123-45-6789',
      fingerprint_input: '123456789',
      masked: 'XXX-XX-6789',
      search_values: ['123-45-6789', '6789'],
    });
  });

  it('throws one validation error naming each failing expression', () => {
    const failing = draft({ mask: '{{ data | fails }}', search_indexes: ['{{ data.missing }}', '{{ data }}'] });
    expect(() => prepareToken(failing, specEngine)).toThrow(DomainError);
    try {
      prepareToken(failing, specEngine);
    } catch (error) {
      expect(Object.keys((error as DomainError).errors!)).toEqual(['search_indexes[0]', 'mask']);
    }
  });
});

describe('from draft to command content and back', () => {
  it('puts the sealed values and the evaluated mask next to the expressions', () => {
    const prepared = prepareToken(draft(), specEngine);
    const sealed = { encrypted: aTokenContent().encrypted, masked: aTokenContent().masked, fingerprint: 'fp', search_hashes: ['h1', 'h2'] };
    expect(prepared.masked).toBe('XXX-XX-6789');
    expect(tokenContent(draft(), sealed)).toEqual({
      type: 'social_security_number',
      ...sealed,
      fingerprint_expression: "{{ data | remove: '-' }}",
      mask: '{{ data | reveal_last: 4 }}',
      containers: ['/pii/high/'],
      metadata: {},
      search_indexes: ['{{ data }}', '{{ data | last4 }}'],
      expires_at: null,
    });
  });

  it('rebuilds the draft of a stored token from its record and decrypted data', () => {
    const record: TokenRecord = {
      id: TOKEN_ID,
      tenant_id: TENANT,
      ...aTokenContent(),
      created_by: 'app',
      created_at: '2024-01-01T00:00:00.000Z',
      modified_by: null,
      modified_at: null,
    };
    expect(draftOf(record, '123-45-6789')).toEqual({
      type: record.type,
      data: '123-45-6789',
      containers: record.containers,
      metadata: record.metadata,
      search_indexes: record.search_indexes,
      fingerprint_expression: record.fingerprint_expression,
      mask: record.mask,
      expires_at: null,
    });
  });
});
