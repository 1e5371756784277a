// The domain's token validation with the real Liquid engine: what a POST /tokens body turns into, or its 400.
import { DomainError, validateCreateToken, validateTokenPatch, type FieldErrors } from '@vault/domain';
import { LiquidExpressionEngine } from './liquid-expression-engine';

const options = { now: new Date('2024-05-01T00:00:00Z'), engine: new LiquidExpressionEngine() };
const SECRET_NAME = 'Ada Secret-Lovelace';

const errorsOf = (body: unknown): FieldErrors => {
  try {
    validateCreateToken(body, options);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return (error as DomainError).errors!;
  }
  throw new Error('The body was accepted');
};

describe('type defaults, evaluated by Liquid', () => {
  it.each([
    ['social_security_number', '123-45-6789', '123456789', 'XXX-XX-6789', ['123-45-6789', '123456789', '6789']],
    ['social_security_number', '123456789', '123456789', 'XXXXX6789', ['123456789', '6789']],
    ['employer_id_number', '12-3456789', '123456789', 'XX-XXX6789', ['12-3456789', '123456789', '6789']],
    ['card_number', '4242424242424242', '4242424242424242', 'XXXXXXXXXXXX4242', []],
    ['token', { b: 1, a: 'x' }, '{"a":"x","b":1}', null, []],
  ])('%s %j', (type, data, fingerprint, masked, searchValues) => {
    const { prepared } = validateCreateToken({ type, data }, options);
    expect(prepared).toMatchObject({ fingerprint_input: fingerprint, masked, search_values: searchValues });
  });
});

describe('expressions over JSON data', () => {
  it('reads object fields with {{ data.field }} in indexes, masks and fingerprints', () => {
    const body = {
      type: 'token',
      data: { name: SECRET_NAME, ssn: '123-45-6789' },
      search_indexes: ['{{ data.name }}', "{{ data.ssn | remove: '-' }}"],
      mask: '{{ data.ssn | reveal_last: 4 }}',
      fingerprint_expression: '{{ data.ssn }}',
    };
    expect(validateCreateToken(body, options).prepared).toMatchObject({
      fingerprint_input: '123-45-6789',
      masked: 'XXX-XX-6789',
      search_values: ['ada secret-lovelace', '123456789'],
    });
  });

  it.each([
    ['{{ data.tags }}', 'evaluates to a list'],
    ["{{ data.name | split: ' ' }}", 'evaluates to a list'],
    ['{{ data.missing }}', 'evaluates to an empty value'],
    ['{{ data.nothing | default: "null" }}', 'evaluates to null'],
    // Liquid's null and empty literals are objects inside liquidjs: they are empty, never the text `{}`.
    ['{{ nil }}', 'evaluates to an empty value'],
    ['{{ null }}', 'evaluates to an empty value'],
    ['{{ empty }}', 'evaluates to an empty value'],
    ['{{ blank }}', 'evaluates to an empty value'],
    ['{{ data.name | no_such_filter }}', 'an unknown filter'],
    ["{% include 'x' %}", 'an unknown tag'],
  ])('%s is a 400 on its index, without the data in the message', (expression, message) => {
    const errors = errorsOf({ type: 'token', data: { name: SECRET_NAME, tags: ['a', 'b'] }, search_indexes: [expression] });
    expect(errors['search_indexes[0]']).toEqual([expect.stringContaining(message)]);
    expect(JSON.stringify(errors)).not.toContain('Secret');
  });

  it('re-evaluates a patched token with the same engine', () => {
    const { draft } = validateCreateToken({ type: 'social_security_number', data: '123-45-6789' }, options);
    const { prepared } = validateTokenPatch({ data: '987-65-4321', mask: "{{ data | reveal: 3, 0, '*' }}" }, draft, options);
    expect(prepared).toMatchObject({ masked: '987-**-****', search_values: ['987-65-4321', '987654321', '4321'] });
  });
});
