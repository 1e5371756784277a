import { DATA_SEARCH_TOKEN_TYPES, isLuhnValid, MAX_TOKEN_DATA_DEPTH, MAX_TOKEN_DATA_LENGTH, tokenTypeRules, type TokenType } from './token-types';

const nested = (depth: number): unknown => (depth === 1 ? 'leaf' : { next: nested(depth - 1) });

describe('data each type accepts', () => {
  it.each<[TokenType, unknown]>([
    ['card_number', '4242424242424242'],
    ['card_number', '4222222222222'], // 13 digits
    ['card_number', '6011000990139424'],
    ['card_number', '3530111333300000'],
    ['card_number', '6011000000000000001'], // 19 digits
    ['social_security_number', '123-45-6789'],
    ['social_security_number', '123456789'],
    ['employer_id_number', '12-3456789'],
    ['employer_id_number', '123456789'],
    ['token', 'any text'],
    ['token', 42],
    ['token', false],
    ['token', ['a', 1, null]],
    ['token', { name: 'Ada', address: { city: 'London' } }],
    ['token', ''],
    ['token', nested(MAX_TOKEN_DATA_DEPTH)],
  ])('%s accepts %j', (type, data) => {
    expect(tokenTypeRules(type).checkData(data)).toBeNull();
  });

  it.each<[TokenType, unknown, RegExp]>([
    ['card_number', '4242424242424241', /Luhn/], // check digit wrong
    ['card_number', '424242424242', /13 to 19 digits/], // 12 digits, Luhn-valid
    ['card_number', '42424242424242424242', /13 to 19 digits/], // 20 digits
    ['card_number', '4242 4242 4242 4242', /13 to 19 digits/],
    ['card_number', '4242-4242-4242-4242', /13 to 19 digits/],
    ['card_number', 4242424242424242, /must be a string/],
    ['card_number', undefined, /must be a string/],
    ['social_security_number', '987-654-321', /123-45-6789 or 123456789/],
    ['social_security_number', '98765432', /9 digits/],
    ['social_security_number', '9876543210', /9 digits/],
    ['social_security_number', '987-65-432a', /9 digits/],
    ['social_security_number', '98765-4321', /9 digits/],
    ['social_security_number', 123456789, /must be a string/],
    ['employer_id_number', '987-65-4321', /12-3456789 or 123456789/],
    ['employer_id_number', '9-87654321', /9 digits/],
    ['employer_id_number', '98-765432', /9 digits/],
    ['employer_id_number', null, /must be a string/],
    ['token', undefined, /required/],
    ['token', null, /must not be null/],
    ['token', Number.NaN, /finite/],
    ['token', { when: new Date(0) }, /JSON value/],
    ['token', nested(MAX_TOKEN_DATA_DEPTH + 1), /deeper than 64/],
  ])('%s rejects %j', (type, data, message) => {
    const problem = tokenTypeRules(type).checkData(data);
    expect(problem).toMatch(message);
    if (typeof data === 'string') expect(problem).not.toContain(data);
  });
});

describe('the size of token data', () => {
  const check = (data: unknown) => tokenTypeRules('token').checkData(data);

  it('takes data of exactly the maximum JSON length, and refuses one character more', () => {
    const fits = 'x'.repeat(MAX_TOKEN_DATA_LENGTH - 2);
    expect(JSON.stringify(fits)).toHaveLength(MAX_TOKEN_DATA_LENGTH);
    expect(check(fits)).toBeNull();
    expect(check(fits + 'x')).toMatch(/at most 65,536 characters/);
  });

  it.each([
    ['a long array', Array.from({ length: 300_000 }, () => 1)],
    ['an object of many keys', Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i]))],
    ['escapes that only the exact length counts', { s: '\u0001'.repeat(20_000) }],
  ])('refuses %s', (_title, data) => {
    expect(check(data)).toMatch(/at most 65,536 characters/);
  });
});

describe('the defaults of each type', () => {
  it.each<[TokenType, string, string, string | null, number, boolean, boolean]>([
    ['token', '/general/high/', '{{ data | stringify }}', null, 0, true, true],
    ['card_number', '/pci/high/', '{{ data }}', '{{ data | reveal_last: 4 }}', 0, false, false],
    ['social_security_number', '/pii/high/', "{{ data | remove: '-' }}", '{{ data | reveal_last: 4 }}', 3, true, true],
    ['employer_id_number', '/pii/high/', "{{ data | remove: '-' }}", '{{ data | reveal_last: 4 }}', 3, true, true],
  ])('%s', (type, container, fingerprint, mask, indexes, indexesAllowed, searchable) => {
    expect(tokenTypeRules(type)).toMatchObject({
      defaultContainer: container,
      defaultFingerprintExpression: fingerprint,
      defaultMask: mask,
      searchIndexesAllowed: indexesAllowed,
      dataSearchable: searchable,
    });
    expect(tokenTypeRules(type).defaultSearchIndexes).toHaveLength(indexes);
  });

  it('indexes SSNs and EINs as given, without delimiters and by their last four digits', () => {
    expect(tokenTypeRules('social_security_number').defaultSearchIndexes).toEqual([
      '{{ data }}',
      "{{ data | remove: '-' }}",
      '{{ data | last4 }}',
    ]);
  });

  it('lets data search reach SSNs, EINs and generic tokens only', () => {
    expect([...DATA_SEARCH_TOKEN_TYPES].sort()).toEqual(['employer_id_number', 'social_security_number', 'token']);
  });
});

describe('isLuhnValid', () => {
  it.each([
    ['79927398713', true],
    ['79927398710', false],
    ['0', true],
    ['18', true],
    ['19', false],
  ])('%s → %s', (digits, valid) => {
    expect(isLuhnValid(digits)).toBe(valid);
  });
});
