// A proxy's transforms as validateProxyInput reads them: each type's shape, the limits, the older single form, and
// every problem filed under the exact path of the field at fault.
import { DomainError, type FieldErrors } from '../shared/errors';
import { MAX_CONTAINERS } from '../tokens/token-fields.validate';
import { ALLOWED_HOSTS, anApplication, DESTINATION, PRIVATE_APP_ID, TENANT } from './proxy.builders';
import { MAX_TRANSFORM_CODE_LENGTH, MAX_TRANSFORM_FIELDS, MAX_TRANSFORMS } from './proxy-transforms.validate';
import { validateProxyInput } from './proxy.validate';
import type { ProxyTransform } from './proxy.types';

const CODE: ProxyTransform = { type: 'code', code: 'return { body: args.body, headers: args.headers };' };
const MASK: ProxyTransform = { type: 'mask', fields: ['$.card.number'] };
const TOKENIZE: ProxyTransform = { type: 'tokenize', fields: [{ json_path: '$.card.number', token: { type: 'card_number' } }] };

/** A body with an application, so tokenize transforms are allowed. */
const bodyWith = (transforms: Record<string, unknown>): Record<string, unknown> => ({
  name: 'Charge card',
  destination_url: DESTINATION,
  application: { id: PRIVATE_APP_ID },
  ...transforms,
});

const context = { tenantId: TENANT, application: anApplication(), hosts: ALLOWED_HOSTS };

const transformsOf = (transforms: Record<string, unknown>) => {
  const { request_transforms, response_transforms } = validateProxyInput(bodyWith(transforms), context);
  return { request_transforms, response_transforms };
};

const errorsOf = (transforms: Record<string, unknown>): FieldErrors => {
  try {
    validateProxyInput(bodyWith(transforms), context);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the body was accepted');
};

const tokenizeField = (field: Record<string, unknown>) => ({ type: 'tokenize', fields: [field] });
const tokenOf = (token: unknown) => tokenizeField({ json_path: '$.pan', token });

describe('proxy transforms accepted', () => {
  it('keeps each direction in the order given, every type in its shape', () => {
    expect(transformsOf({ request_transforms: [TOKENIZE, CODE, MASK], response_transforms: [MASK] })).toEqual({
      request_transforms: [TOKENIZE, CODE, MASK],
      response_transforms: [MASK],
    });
  });

  it(`takes ${MAX_TRANSFORMS} transforms in a direction`, () => {
    const ten = Array.from({ length: MAX_TRANSFORMS }, () => MASK);
    expect(transformsOf({ request_transforms: ten, response_transforms: ten }).request_transforms).toHaveLength(MAX_TRANSFORMS);
  });

  it('reads a tokenize field\'s containers as paths, lower-cased and once each, and its metadata, dropping null entries', () => {
    const field = { json_path: '$.pan', token: { type: 'token', containers: ['/PCI/high/', '/pci/high/', '/'], metadata: { source: 'checkout', gone: null } } };
    expect(transformsOf({ request_transforms: [tokenizeField(field)] }).request_transforms).toEqual([
      { type: 'tokenize', fields: [{ json_path: '$.pan', token: { type: 'token', containers: ['/pci/high/', '/'], metadata: { source: 'checkout' } } }] },
    ]);
  });

  it.each(['token', 'card_number', 'social_security_number', 'employer_id_number'])('tokenizes as a %s', (type) => {
    expect(() => transformsOf({ request_transforms: [tokenOf({ type })] })).not.toThrow();
  });

  it.each([
    '$',
    '$.card.number',
    '$.items[0].pan',
    '$.items[-1]',
    "$['card number']",
    '$["card"]["number"]',
    "$[ 'card' ][ 0 ]",
    "$['it\\'s']",
    '$.kärtchen._nummer2',
  ])('takes the JSON path %s', (path) => {
    expect(() => transformsOf({ request_transforms: [{ type: 'mask', fields: [path] }, tokenizeField({ json_path: path, token: { type: 'token' } })] })).not.toThrow();
  });

  it(`takes ${MAX_TRANSFORM_FIELDS} fields and code of ${MAX_TRANSFORM_CODE_LENGTH} characters`, () => {
    const fields = Array.from({ length: MAX_TRANSFORM_FIELDS }, (_, i) => `$.f${i}`);
    const code = '🔐'.repeat(MAX_TRANSFORM_CODE_LENGTH);
    expect(() => transformsOf({ request_transforms: [{ type: 'mask', fields }, { type: 'code', code }] })).not.toThrow();
  });
});

describe('the older single-transform form', () => {
  it.each<[string, Record<string, unknown>, { request_transforms: ProxyTransform[]; response_transforms: ProxyTransform[] }]>([
    ['request_transform is a one-element request_transforms of type code', { request_transform: { code: 'return args;' } }, {
      request_transforms: [{ type: 'code', code: 'return args;' }], response_transforms: [],
    }],
    ['response_transform is a one-element response_transforms of type code', { response_transform: { code: 'return args;' } }, {
      request_transforms: [], response_transforms: [{ type: 'code', code: 'return args;' }],
    }],
    ['each direction may use either form', { request_transform: { code: 'a' }, response_transforms: [MASK] }, {
      request_transforms: [{ type: 'code', code: 'a' }], response_transforms: [MASK],
    }],
    ['a null single form beside a list is no single form', { request_transform: null, request_transforms: [MASK] }, {
      request_transforms: [MASK], response_transforms: [],
    }],
    ['a null list beside a single form is no list', { response_transform: { code: 'a' }, response_transforms: null }, {
      request_transforms: [], response_transforms: [{ type: 'code', code: 'a' }],
    }],
  ])('%s', (_title, transforms, expected) => {
    expect(transformsOf(transforms)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, FieldErrors]>([
    ['both forms of one direction', { request_transform: { code: 'a' }, request_transforms: [MASK] }, {
      request_transform: ['Give request_transform or request_transforms, not both: request_transform is a one-element request_transforms of type code.'],
    }],
    ['a single form that is a string', { request_transform: 'return args;' }, {
      request_transform: ['request_transform must be an object { "code": "…" }, not a string.'],
    }],
    ['a single form without code', { request_transform: {} }, { 'request_transform.code': ['request_transform.code is required.'] }],
    ['a single form with code that is not a string', { response_transform: { code: 1 } }, {
      'response_transform.code': ['response_transform.code must be a string of JavaScript, not a number.'],
    }],
    ['a single form of another type', { request_transform: { type: 'mask', code: 'a' } }, {
      'request_transform.type': ['request_transform.type is not an allowed property.'],
    }],
  ])('refuses %s', (_title, transforms, expected) => {
    expect(errorsOf(transforms)).toEqual(expected);
  });

  it('takes both forms when the single one restates the list, as a proxy read back shows them', () => {
    const list = [{ type: 'mask', fields: ['$.a'] }, { type: 'code', code: 'a' }];
    expect(validateProxyInput(bodyWith({ response_transform: { code: 'a' }, response_transforms: list }), context).response_transforms).toEqual(list);
  });
});

describe('proxy transforms refused, on the exact path', () => {
  it.each<[string, Record<string, unknown>, FieldErrors]>([
    ['a list that is an object', { request_transforms: CODE }, { request_transforms: ['request_transforms must be an array of transforms, not an object.'] }],
    ['a list that is a string', { response_transforms: 'mask' }, { response_transforms: ['response_transforms must be an array of transforms, not a string.'] }],
    [`${MAX_TRANSFORMS + 1} transforms`, { response_transforms: Array.from({ length: MAX_TRANSFORMS + 1 }, () => MASK) }, {
      response_transforms: [`response_transforms must hold at most ${MAX_TRANSFORMS} transforms, not ${MAX_TRANSFORMS + 1}.`],
    }],
    ['a transform that is a string', { request_transforms: [CODE, 'mask'] }, { 'request_transforms[1]': ['request_transforms[1] must be an object with a type, not a string.'] }],
    ['a transform without type', { request_transforms: [{ code: 'a' }] }, { 'request_transforms[0].type': ['request_transforms[0].type is required.'] }],
    ['an unknown type', { request_transforms: [CODE, { type: 'encrypt' }] }, { 'request_transforms[1].type': ['request_transforms[1].type must be one of code, tokenize, mask, not another string.'] }],
    ['a type of another case', { request_transforms: [{ type: 'Code', code: 'a' }] }, { 'request_transforms[0].type': [expect.stringContaining('must be one of code, tokenize, mask')] }],
    ['a type that is not a string', { response_transforms: [{ type: 1 }] }, { 'response_transforms[0].type': ['response_transforms[0].type must be one of code, tokenize, mask, not a number.'] }],
    ['a property of another type', { request_transforms: [{ ...CODE, fields: ['$.a'] }] }, { 'request_transforms[0].fields': ['request_transforms[0].fields is not an allowed property.'] }],
    ['code missing', { request_transforms: [MASK, { type: 'code' }] }, { 'request_transforms[1].code': ['request_transforms[1].code is required.'] }],
    ['code that is not a string', { request_transforms: [{ type: 'code', code: ['a'] }] }, { 'request_transforms[0].code': ['request_transforms[0].code must be a string of JavaScript, not an array.'] }],
    ['blank code', { response_transforms: [{ type: 'code', code: ' \n ' }] }, { 'response_transforms[0].code': ['response_transforms[0].code must not be blank.'] }],
    ['code that is too long', { request_transforms: [{ type: 'code', code: 'x'.repeat(MAX_TRANSFORM_CODE_LENGTH + 1) }] }, {
      'request_transforms[0].code': [`request_transforms[0].code must be at most ${MAX_TRANSFORM_CODE_LENGTH} characters long.`],
    }],
    ['mask fields missing', { request_transforms: [{ type: 'mask' }] }, { 'request_transforms[0].fields': ['request_transforms[0].fields must be a non-empty array.'] }],
    ['mask fields empty', { request_transforms: [{ type: 'mask', fields: [] }] }, { 'request_transforms[0].fields': ['request_transforms[0].fields must be a non-empty array.'] }],
    ['mask fields as one path', { request_transforms: [{ type: 'mask', fields: '$.a' }] }, { 'request_transforms[0].fields': ['request_transforms[0].fields must be a non-empty array.'] }],
    [`${MAX_TRANSFORM_FIELDS + 1} mask fields`, { request_transforms: [{ type: 'mask', fields: Array.from({ length: MAX_TRANSFORM_FIELDS + 1 }, () => '$.a') }] }, {
      'request_transforms[0].fields': [`request_transforms[0].fields must hold at most ${MAX_TRANSFORM_FIELDS} fields, not ${MAX_TRANSFORM_FIELDS + 1}.`],
    }],
    ['a mask field that is not a string', { response_transforms: [{ type: 'mask', fields: ['$.a', { json_path: '$.b' }] }] }, {
      'response_transforms[0].fields[1]': ['response_transforms[0].fields[1] must be a JSONPath string such as $.card.number, not an object.'],
    }],
    ['a mask field outside the JSONPath subset', { response_transforms: [MASK, { type: 'mask', fields: ['$.a', '$..number'] }] }, {
      'response_transforms[1].fields[1]': ['response_transforms[1].fields[1]: descendant segments (..) are not supported at character 3 of the path. Use $, .name, [\'name\'] or [n].'],
    }],
    ['tokenize fields empty', { request_transforms: [{ type: 'tokenize', fields: [] }] }, { 'request_transforms[0].fields': ['request_transforms[0].fields must be a non-empty array.'] }],
    ['a tokenize field given as a path', { request_transforms: [{ type: 'tokenize', fields: ['$.pan'] }] }, {
      'request_transforms[0].fields[0]': ['request_transforms[0].fields[0] must be an object { "json_path": "$…", "token": { "type": … } }, not a string.'],
    }],
    ['a tokenize field without json_path', { request_transforms: [tokenizeField({ token: { type: 'token' } })] }, {
      'request_transforms[0].fields[0].json_path': ['request_transforms[0].fields[0].json_path is required.'],
    }],
    ['a tokenize json_path outside the subset', { request_transforms: [CODE, MASK, { type: 'tokenize', fields: [{ json_path: '$.items[*]', token: { type: 'token' } }] }] }, {
      'request_transforms[2].fields[0].json_path': [expect.stringMatching(/^request_transforms\[2\]\.fields\[0\]\.json_path: expected a quoted name or an integer index at character 9 of the path/)],
    }],
    ['a tokenize field with an unknown property', { request_transforms: [tokenizeField({ json_path: '$.pan', token: { type: 'token' }, mask: true })] }, {
      'request_transforms[0].fields[0].mask': ['request_transforms[0].fields[0].mask is not an allowed property.'],
    }],
    ['a tokenize field without token', { request_transforms: [tokenizeField({ json_path: '$.pan' })] }, {
      'request_transforms[0].fields[0].token': ['request_transforms[0].fields[0].token is required.'],
    }],
    ['a token given as its type', { request_transforms: [tokenOf('card_number')] }, {
      'request_transforms[0].fields[0].token': ['request_transforms[0].fields[0].token must be an object with a type, not a string.'],
    }],
    ['a token without type', { request_transforms: [tokenOf({})] }, { 'request_transforms[0].fields[0].token.type': ['request_transforms[0].fields[0].token.type is required.'] }],
    ['an unknown token type', { request_transforms: [tokenOf({ type: 'iban' })] }, {
      'request_transforms[0].fields[0].token.type': ['request_transforms[0].fields[0].token.type must be one of token, card_number, social_security_number, employer_id_number, not another string.'],
    }],
    ['a token with an unknown property', { request_transforms: [tokenOf({ type: 'token', expires_at: '2030-01-01T00:00:00Z' })] }, {
      'request_transforms[0].fields[0].token.expires_at': ['request_transforms[0].fields[0].token.expires_at is not an allowed property.'],
    }],
    ['containers that are a string', { request_transforms: [tokenOf({ type: 'token', containers: '/pci/' })] }, {
      'request_transforms[0].fields[0].token.containers': ['request_transforms[0].fields[0].token.containers must be an array of container paths, not a string.'],
    }],
    ['containers that are empty', { request_transforms: [tokenOf({ type: 'token', containers: [] })] }, {
      'request_transforms[0].fields[0].token.containers': ['request_transforms[0].fields[0].token.containers must hold at least one container.'],
    }],
    ['too many containers', { request_transforms: [tokenOf({ type: 'token', containers: Array.from({ length: MAX_CONTAINERS + 1 }, (_, i) => `/c${i}/`) })] }, {
      'request_transforms[0].fields[0].token.containers': [`request_transforms[0].fields[0].token.containers must hold at most ${MAX_CONTAINERS} containers, not ${MAX_CONTAINERS + 1}.`],
    }],
    ['a container that is not a path', { request_transforms: [tokenOf({ type: 'token', containers: ['/pci/', 'pci'] })] }, {
      'request_transforms[0].fields[0].token.containers[1]': ['request_transforms[0].fields[0].token.containers[1] must be a path like /pci/high/: /-delimited segments of a-z, 0-9, _ or -.'],
    }],
    ['metadata that is a list', { request_transforms: [tokenOf({ type: 'token', metadata: ['a'] })] }, {
      'request_transforms[0].fields[0].token.metadata': ['request_transforms[0].fields[0].token.metadata must be an object of string values, not an array.'],
    }],
    ['a metadata value that is not a string', { request_transforms: [tokenOf({ type: 'token', metadata: { source: 1 } })] }, {
      'request_transforms[0].fields[0].token.metadata.source': ['request_transforms[0].fields[0].token.metadata.source must be a string, not a number.'],
    }],
    ['a metadata key that is not allowed', { request_transforms: [tokenOf({ type: 'token', metadata: { 'a b': 'c' } })] }, {
      'request_transforms[0].fields[0].token.metadata.a b': [expect.stringContaining('metadata keys must be 1 to 100 characters')],
    }],
  ])('%s', (_title, transforms, expected) => {
    expect(errorsOf(transforms)).toEqual(expected);
  });

  it.each([
    ['a path that does not start with $', 'card.number', 'the path must start with $ at character 1'],
    ['a wildcard member', '$.*', 'expected a name at character 3'],
    ['a slice', '$.items[0:2]', 'expected ] at character 10'],
    ['a filter', '$.items[?(@.pan)]', 'expected a quoted name or an integer index at character 9'],
    ['an index with a leading zero', '$.items[01]', 'expected a quoted name or an integer index at character 9'],
    ['an unclosed quoted name', "$['card", 'a quoted name is not closed at character 3'],
    ['an unknown escape', "$['\\q']", 'invalid escape in a quoted name at character 4'],
    ['a trailing dot', '$.card.', 'expected a name at character 8'],
    ['a space between steps', '$.card .number', 'expected . or [ at character 7'],
    ['a path over 1,000 characters', `$${'.a'.repeat(500)}`, 'the path must be at most 1,000 characters.'],
  ])('refuses %s in both a mask and a tokenize field, at its place', (_title, path, problem) => {
    expect(errorsOf({ response_transforms: [{ type: 'mask', fields: ['$.ok', path] }, tokenizeField({ json_path: path, token: { type: 'token' } })] })).toEqual({
      'response_transforms[0].fields[1]': [expect.stringContaining(`response_transforms[0].fields[1]: ${problem}`)],
      'response_transforms[1].fields[0].json_path': [expect.stringContaining(`response_transforms[1].fields[0].json_path: ${problem}`)],
    });
  });

  it('names every bad place of every transform in one error', () => {
    const errors = errorsOf({
      request_transforms: [{ type: 'code', code: '' }, tokenizeField({ json_path: '$..a', token: { type: 'x', containers: ['nope'] } })],
      response_transforms: [{ type: 'mask', fields: [1, '$.ok', 'x'] }, { type: 'nope' }],
    });
    expect(Object.keys(errors).sort()).toEqual([
      'request_transforms[0].code',
      'request_transforms[1].fields[0].json_path',
      'request_transforms[1].fields[0].token.containers[0]',
      'request_transforms[1].fields[0].token.type',
      'response_transforms[0].fields[0]',
      'response_transforms[0].fields[2]',
      'response_transforms[1].type',
    ]);
  });

  it('never quotes the path it refuses', () => {
    const errors = errorsOf({ request_transforms: [{ type: 'mask', fields: ['$.secret_field..x'] }] });
    expect(JSON.stringify(errors)).not.toContain('secret_field');
  });
});

describe('tokenize fields and code, read as the rest of the API reads them', () => {
  it('takes null containers and metadata as absent, as a token body and the proxy body do', () => {
    expect(transformsOf({ request_transforms: [tokenOf({ type: 'token', containers: null, metadata: null })] }).request_transforms).toEqual([
      { type: 'tokenize', fields: [{ json_path: '$.pan', token: { type: 'token' } }] },
    ]);
  });

  it('calls a missing token required, as it does a missing json_path', () => {
    expect(errorsOf({ request_transforms: [tokenizeField({ json_path: '$.pan' })] })).toEqual({
      'request_transforms[0].fields[0].token': ['request_transforms[0].fields[0].token is required.'],
    });
  });

  it('does not call blank code "not a string"', () => {
    const [message] = errorsOf({ response_transforms: [{ type: 'code', code: ' ' }] })['response_transforms[0].code'];
    expect(message).not.toContain('not a string');
  });
});
