import { DomainError, type FieldErrors } from '../shared/errors';
import { ALLOWED_HOSTS, anApplication, aProxyBody, DESTINATION, hostsOf, OTHER_TENANT, PRIVATE_APP_ID, TENANT } from './proxy.builders';
import type { DestinationHosts } from './proxy-destination';
import type { ProxyApplicationSnapshot } from './proxy.types';
import {
  MAX_PROXY_CONFIGURATION_ENTRIES,
  MAX_PROXY_CONFIGURATION_VALUE_LENGTH,
  proxyApplicationId,
  validateProxyInput,
  type ProxyValidationContext,
} from './proxy.validate';

const SECRET = 'sk_live_5ecret';
const TOKENIZE = { type: 'tokenize', fields: [{ json_path: '$.card.number', token: { type: 'card_number' } }] };

type Context = { application?: ProxyApplicationSnapshot | null; hosts?: DestinationHosts };

const contextOf = ({ application = anApplication(), hosts = ALLOWED_HOSTS }: Context = {}): ProxyValidationContext => ({
  tenantId: TENANT,
  application,
  hosts,
});

const errorsOf = (body: unknown, context: Context = {}): FieldErrors => {
  try {
    validateProxyInput(body, contextOf(context));
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('validation');
    return (error as DomainError).errors ?? {};
  }
  throw new Error('the body was accepted');
};

describe('validateProxyInput accepts', () => {
  it('a body of a name and a destination, with every default', () => {
    expect(validateProxyInput({ name: 'Charge card', destination_url: DESTINATION }, contextOf())).toEqual({
      name: 'Charge card',
      destination_url: DESTINATION,
      require_auth: true,
      application_id: null,
      configuration: {},
      request_transforms: [],
      response_transforms: [],
    });
  });

  it('null for every optional property, as if it were absent', () => {
    const body = { name: 'n', destination_url: DESTINATION, require_auth: null, application: null, configuration: null, request_transforms: null, response_transforms: null, request_transform: null, response_transform: null };
    expect(validateProxyInput(body, contextOf())).toEqual({
      name: 'n', destination_url: DESTINATION, require_auth: true, application_id: null, configuration: {}, request_transforms: [], response_transforms: [],
    });
  });

  it('the whole body, returning the plaintext configuration and transforms, the destination as the URL parser writes it and a lower-case application id', () => {
    const body = aProxyBody({
      destination_url: 'HTTPS://API.EXAMPLE.COM:443/v1/charges',
      require_auth: false,
      application: { id: PRIVATE_APP_ID.toUpperCase() },
      request_transforms: [TOKENIZE],
    });
    expect(validateProxyInput(body, contextOf())).toEqual({
      name: 'Charge card',
      destination_url: DESTINATION,
      require_auth: false,
      application_id: PRIVATE_APP_ID,
      configuration: { api_key: SECRET },
      request_transforms: [TOKENIZE],
      response_transforms: [{ type: 'mask', fields: ['$.card.number'] }],
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['a name of one character', aProxyBody({ name: 'x' })],
    ['a name of 200 emoji (code points are counted)', aProxyBody({ name: '🔐'.repeat(200) })],
    ['require_auth true', aProxyBody({ require_auth: true })],
    ['an empty configuration', aProxyBody({ configuration: {} })],
    [`${MAX_PROXY_CONFIGURATION_ENTRIES} settings`, aProxyBody({ configuration: Object.fromEntries(Array.from({ length: MAX_PROXY_CONFIGURATION_ENTRIES }, (_, i) => [`s${i}`, 'v'])) })],
    [`a setting of ${MAX_PROXY_CONFIGURATION_VALUE_LENGTH} characters`, aProxyBody({ configuration: { api_key: 'k'.repeat(MAX_PROXY_CONFIGURATION_VALUE_LENGTH) } })],
    ['an empty setting value', aProxyBody({ configuration: { api_key: '' } })],
    ['a private application of the tenant and no tokenize transform', aProxyBody({ application: { id: PRIVATE_APP_ID } })],
    ['a tokenize response transform with an application', aProxyBody({ response_transforms: [TOKENIZE], application: { id: PRIVATE_APP_ID } })],
  ])('%s', (_title, body) => {
    expect(() => validateProxyInput(body, contextOf())).not.toThrow();
  });

  it('keeps a setting named __proto__ as an own property', () => {
    const body = JSON.parse(`{"name":"n","destination_url":"${DESTINATION}","configuration":{"__proto__":"v"}}`);
    const { configuration } = validateProxyInput(body, contextOf());
    expect(Object.hasOwn(configuration, '__proto__')).toBe(true);
    expect(JSON.stringify(configuration)).toBe('{"__proto__":"v"}');
  });
});

describe('validateProxyInput rejects', () => {
  // The test takes rest parameters: a fourth named one would make Jest pass `done` to the rows that have three.
  it.each<[string, unknown, FieldErrors, Context?]>([
    ['a body that is an array', [], { body: ['The body must be a JSON object, not an array.'] }],
    ['a body that is null', null, { body: ['The body must be a JSON object, not null.'] }],
    ['an unknown property', aProxyBody({ status: 'on' }), { status: ['status is not an allowed property.'] }],
    ['a key: it is generated', aProxyBody({ key: 'k' }), { key: ["key is not an allowed property. A proxy's key is generated and never changes."] }],
    ['a missing name', aProxyBody({ name: undefined }), { name: ['name is required.'] }],
    ['an empty name', aProxyBody({ name: '' }), { name: ['name must not be empty.'] }],
    ['a blank name', aProxyBody({ name: ' \t ' }), { name: ['name must not be empty.'] }],
    ['a name that is not a string', aProxyBody({ name: 42 }), { name: ['name must be a string, not a number.'] }],
    ['a name of 201 characters', aProxyBody({ name: 'n'.repeat(201) }), { name: ['name must be at most 200 characters long.'] }],
    ['a missing destination', aProxyBody({ destination_url: undefined }), { destination_url: ['destination_url must be an http: or https: URL.'] }],
    ['an ftp destination', aProxyBody({ destination_url: 'ftp://api.example.com/' }), { destination_url: ['destination_url must be an http: or https: URL.'] }],
    ['a destination off the list', aProxyBody({ destination_url: 'https://evil.example.net/' }), { destination_url: ['destination_url must be on a host listed in VAULT_PROXY_ALLOWED_HOSTS.'] }],
    ['any destination when no host is listed', aProxyBody(), { destination_url: [expect.stringContaining('which is empty: proxying is off')] }, { hosts: hostsOf() }],
    ['require_auth as a string', aProxyBody({ require_auth: 'false' }), { require_auth: ['require_auth must be a boolean, not a string.'] }],
    ['require_auth as a number', aProxyBody({ require_auth: 0 }), { require_auth: ['require_auth must be a boolean, not a number.'] }],
    ['a configuration that is an array', aProxyBody({ configuration: [SECRET] }), { configuration: ['configuration must be an object of string values, not an array.'] }],
    ['a configuration that is a string', aProxyBody({ configuration: SECRET }), { configuration: ['configuration must be an object of string values, not a string.'] }],
    ['a number setting', aProxyBody({ configuration: { retries: 3 } }), { 'configuration.retries': ['configuration.retries must be a string, not a number.'] }],
    ['a boolean setting', aProxyBody({ configuration: { sandbox: true } }), { 'configuration.sandbox': ['configuration.sandbox must be a string, not a boolean.'] }],
    ['a null setting', aProxyBody({ configuration: { api_key: null } }), { 'configuration.api_key': ['configuration.api_key must be a string, not null.'] }],
    ['a nested setting', aProxyBody({ configuration: { api_key: { value: SECRET } } }), { 'configuration.api_key': ['configuration.api_key must be a string, not an object.'] }],
    ['a setting with an empty name', aProxyBody({ configuration: { '': 'v' } }), { 'configuration.': ['configuration names must be 1 to 200 characters long.'] }],
    ['a setting name of 201 characters', aProxyBody({ configuration: { ['s'.repeat(201)]: 'v' } }), { [`configuration.${'s'.repeat(100)}…`]: ['configuration names must be 1 to 200 characters long.'] }],
    ['a setting value that is too long', aProxyBody({ configuration: { api_key: 'k'.repeat(MAX_PROXY_CONFIGURATION_VALUE_LENGTH + 1) } }), { 'configuration.api_key': [`configuration.api_key must be at most ${MAX_PROXY_CONFIGURATION_VALUE_LENGTH} characters long.`] }],
    ['too many settings', aProxyBody({ configuration: Object.fromEntries(Array.from({ length: MAX_PROXY_CONFIGURATION_ENTRIES + 1 }, (_, i) => [`s${i}`, 'v'])) }), { configuration: [`configuration must hold at most ${MAX_PROXY_CONFIGURATION_ENTRIES} settings, not ${MAX_PROXY_CONFIGURATION_ENTRIES + 1}.`] }],
    ['an application given as its id', aProxyBody({ application: PRIVATE_APP_ID }), { application: ['application must be an object { "id": "…" } or null, not a string.'] }],
    ['an application given as a list', aProxyBody({ application: [{ id: PRIVATE_APP_ID }] }), { application: ['application must be an object { "id": "…" } or null, not an array.'] }],
    ['an application without id', aProxyBody({ application: {} }), { 'application.id': ['application.id must be a UUID.'] }],
    ['an application id that is not a UUID', aProxyBody({ application: { id: 'billing' } }), { 'application.id': ['application.id must be a UUID.'] }],
    ['an application id that is a number', aProxyBody({ application: { id: 7 } }), { 'application.id': ['application.id must be a UUID.'] }],
    ['an unknown property in application', aProxyBody({ application: { id: PRIVATE_APP_ID, name: 'billing' } }), { 'application.name': ['application.name is not an allowed property.'] }],
    ['an application that does not exist', aProxyBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id names no application of this tenant.'] }, { application: null }],
    ['a deleted application', aProxyBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id names no application of this tenant.'] }, { application: anApplication({ deleted: true }) }],
    ["another tenant's application", aProxyBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id names no application of this tenant.'] }, { application: anApplication({ tenant_id: OTHER_TENANT }) }],
    ['a public application', aProxyBody({ application: { id: PRIVATE_APP_ID } }), { 'application.id': ['application.id must name a private application, not a public one.'] }, { application: anApplication({ type: 'public' }) }],
    ['a request tokenize transform without an application', aProxyBody({ request_transforms: [TOKENIZE] }), { application: [expect.stringContaining('application is required when a transform tokenizes')] }],
    ['a response tokenize transform without an application', aProxyBody({ response_transforms: [TOKENIZE], application: null }), { application: [expect.stringContaining('application is required when a transform tokenizes')] }],
  ])('%s', (...[, body, expected, context]) => {
    expect(errorsOf(body, context)).toEqual(expected);
  });

  it('reports a tokenize transform with an unusable application once, on application.id', () => {
    expect(errorsOf(aProxyBody({ request_transforms: [TOKENIZE], application: { id: PRIVATE_APP_ID } }), { application: null })).toEqual({
      'application.id': ['application.id names no application of this tenant.'],
    });
  });

  it('names every bad field in one error', () => {
    const body = {
      name: '',
      destination_url: 'https://evil.example.net/',
      require_auth: 'yes',
      configuration: { api_key: 1 },
      application: { id: 'nope' },
      request_transforms: [{ type: 'code' }],
      response_transforms: [{ type: 'mask', fields: [] }],
      icon: 'x',
    };
    expect(Object.keys(errorsOf(body)).sort()).toEqual([
      'application.id', 'configuration.api_key', 'destination_url', 'icon', 'name', 'request_transforms[0].code', 'require_auth', 'response_transforms[0].fields',
    ]);
  });

  it('never quotes a configuration value, code or destination in a message', () => {
    const body = {
      name: 'n',
      destination_url: 'https://sk-live-dest.example.net/',
      configuration: { api_key: 'sk_live_value'.repeat(1000), other: 5 },
      request_transforms: [{ type: 'code', code: ' ' }, { type: 'mask', fields: ['$..sk_live_path'] }],
      response_transform: { code: 'sk_live_code', type: 'code' },
    };
    const text = JSON.stringify(errorsOf(body));
    expect(Object.keys(errorsOf(body)).sort()).toEqual([
      'configuration.api_key', 'configuration.other', 'destination_url', 'request_transforms[0].code', 'request_transforms[1].fields[0]', 'response_transform.type',
    ]);
    expect(text).not.toContain('sk_live');
    expect(text).not.toContain('sk-live');
  });

  it('fails loudly when the handler passed the snapshot of another application', () => {
    const context = contextOf({ application: anApplication({ id: 'a7a7a7a7-0000-4000-8000-0000000000a2' }) });
    expect(() => validateProxyInput(aProxyBody({ application: { id: PRIVATE_APP_ID } }), context)).toThrow('snapshot of another application');
  });
});

describe('configuration settings, counted and named as a user writes them', () => {
  it(`accepts a setting of ${MAX_PROXY_CONFIGURATION_VALUE_LENGTH} emoji, as it accepts a name or code counted in code points`, () => {
    expect(() => validateProxyInput(aProxyBody({ configuration: { api_key: '🔐'.repeat(MAX_PROXY_CONFIGURATION_VALUE_LENGTH) } }), contextOf())).not.toThrow();
  });

  it('names a bad setting whose name is valid (101 to 200 characters) by its whole name', () => {
    const name = 's'.repeat(150);
    expect(errorsOf(aProxyBody({ configuration: { [name]: 1 } }))).toEqual({ [`configuration.${name}`]: [`configuration.${name} must be a string, not a number.`] });
  });
});

describe('proxyApplicationId', () => {
  it.each<[string, unknown, string | null]>([
    ['the id, lower-cased', { application: { id: PRIVATE_APP_ID.toUpperCase() } }, PRIVATE_APP_ID],
    ['no application', aProxyBody(), null],
    ['a null application', { application: null }, null],
    ['an id that is not a UUID', { application: { id: 'billing' } }, null],
    ['an application that is not an object', { application: PRIVATE_APP_ID }, null],
    ['a body that is not an object', [PRIVATE_APP_ID], null],
  ])('%s', (_title, body, expected) => {
    expect(proxyApplicationId(body)).toBe(expected);
  });
});
