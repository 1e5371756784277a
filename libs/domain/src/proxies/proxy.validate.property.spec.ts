// Rules of proxy validation that hold for every input, not only the examples of proxy.validate.spec.ts.
import fc from 'fast-check';
import { DomainError, type FieldErrors } from '../shared/errors';
import { ALLOWED_HOSTS, anApplication, DESTINATION, OTHER_TENANT, TENANT } from './proxy.builders';
import { proxyBodyOf } from './proxy.patch';
import { MAX_PROXY_NAME_LENGTH, PROXY_BODY_PROPERTIES, proxyApplicationId, validateProxyInput, type ProxyValidationContext } from './proxy.validate';

/** The context a handler builds for a body: the snapshot of the application it names, whatever that one is. */
const contextFor = (body: unknown, snapshot: { type: string; tenant_id: string; deleted: boolean } | null = null): ProxyValidationContext => {
  const id = proxyApplicationId(body);
  return { tenantId: TENANT, application: id === null || snapshot === null ? null : anApplication({ id, ...snapshot }), hosts: ALLOWED_HOSTS };
};

/** The field errors of a refused body, null for an accepted one; anything thrown but a 400 fails the property. */
const outcomeOf = (body: unknown, context = contextFor(body)): FieldErrors | null => {
  try {
    validateProxyInput(body, context);
    return null;
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind !== 'validation') throw error;
    return error.errors ?? {};
  }
};

const snapshot = fc.option(
  fc.record({ type: fc.constantFrom('private', 'public', 'management'), tenant_id: fc.constantFrom(TENANT, OTHER_TENANT), deleted: fc.boolean() }),
);

describe('proxy validation, for every name', () => {
  const body = (name: unknown) => ({ name, destination_url: DESTINATION });
  const nonBlank = (text: string) => text.trim() !== '';

  it(`accepts every name of 1 to ${MAX_PROXY_NAME_LENGTH} characters that is not blank, as given`, () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: MAX_PROXY_NAME_LENGTH }).filter(nonBlank), (name) => {
        expect(validateProxyInput(body(name), contextFor(null)).name).toBe(name);
      }),
    );
  });

  it(`refuses every name longer than ${MAX_PROXY_NAME_LENGTH} characters, on name`, () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: MAX_PROXY_NAME_LENGTH + 1, maxLength: 3 * MAX_PROXY_NAME_LENGTH }), (name) => {
        expect(outcomeOf(body(name))).toEqual({ name: [expect.any(String)] });
      }),
    );
  });

  it('refuses every empty or blank name, on name', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u2003', '\ufeff'), maxLength: 20 }), (name) => {
        expect(outcomeOf(body(name))).toEqual({ name: ['name must not be empty.'] });
      }),
    );
  });

  it('refuses every name that is not a string, on name', () => {
    fc.assert(
      fc.property(fc.jsonValue().filter((value) => typeof value !== 'string'), (name) => {
        expect(outcomeOf(body(name))).toEqual({ name: [expect.any(String)] });
      }),
    );
  });
});

describe('proxy validation, for every destination', () => {
  const body = (destination_url: unknown) => ({ name: 'n', destination_url });
  const url = fc.webUrl({
    validSchemes: ['http', 'https', 'ftp', 'ws', 'file'],
    authoritySettings: { withIPv4: true, withIPv6: true, withPort: true, withUserInfo: true },
    withQueryParameters: true,
    withFragments: true,
  });
  const listed = fc
    .tuple(fc.constantFrom('http://api.example.com', 'https://api.example.com', 'http://localhost:8080', 'https://localhost:8080'), fc.webPath())
    .map(([origin, path]) => origin + path);

  it('accepts a destination only when it is an http or https URL, without credentials, on a listed host', () => {
    fc.assert(
      fc.property(fc.oneof(url, listed, fc.string(), fc.jsonValue()), (destination) => {
        const errors = outcomeOf(body(destination));
        if (errors !== null) {
          expect(Object.keys(errors)).toEqual(['destination_url']);
          return;
        }
        const parsed = new URL(destination as string);
        expect(['http:', 'https:']).toContain(parsed.protocol);
        expect(parsed.username + parsed.password).toBe('');
        expect(ALLOWED_HOSTS.allows(parsed)).toBe(true);
      }),
    );
  });

  it('refuses every http or https destination on a host that is not listed, on destination_url', () => {
    fc.assert(
      fc.property(fc.webUrl({ authoritySettings: { withIPv4: true, withPort: true } }), (destination) => {
        fc.pre(!ALLOWED_HOSTS.allows(new URL(destination)));
        expect(outcomeOf(body(destination))).toEqual({ destination_url: [expect.stringContaining('VAULT_PROXY_ALLOWED_HOSTS')] });
      }),
    );
  });

  it('accepts every path, query and fragment on a listed host', () => {
    fc.assert(
      fc.property(listed, (destination) => {
        expect(outcomeOf(body(destination))).toBeNull();
      }),
    );
  });
});

describe('proxy validation, for every body', () => {
  it('answers a 400 or a proxy for any JSON, never another failure', () => {
    fc.assert(
      fc.property(fc.jsonValue(), snapshot, (body, application) => {
        outcomeOf(body, contextFor(body, application));
      }),
      { numRuns: 500 },
    );
  });

  it('answers a 400 or a proxy for any JSON in any of its properties', () => {
    const anyBody = fc.record(Object.fromEntries(PROXY_BODY_PROPERTIES.map((property) => [property, fc.jsonValue({ maxDepth: 4 })])), { requiredKeys: [] });
    fc.assert(
      fc.property(anyBody, snapshot, (body, application) => {
        outcomeOf(body, contextFor(body, application));
      }),
      { numRuns: 500 },
    );
  });

  it('answers a 400 or a proxy for any JSON inside transforms of each type', () => {
    const loose = fc.jsonValue({ maxDepth: 3 });
    const transform = fc.oneof(
      fc.record({ type: fc.constantFrom('code', 'mask', 'tokenize', 'other'), code: loose, fields: loose }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constantFrom('mask', 'tokenize'), fields: fc.array(loose, { maxLength: 4 }) }),
      fc.record({
        type: fc.constant('tokenize'),
        fields: fc.array(fc.record({ json_path: fc.oneof(loose, fc.string()), token: fc.oneof(loose, fc.record({ type: loose, containers: loose, metadata: loose }, { requiredKeys: [] })) }, { requiredKeys: [] }), { maxLength: 3 }),
      }),
      loose,
    );
    const body = fc.record(
      {
        name: fc.constant('n'),
        destination_url: fc.constant(DESTINATION),
        application: fc.oneof(fc.constant({ id: 'a7a7a7a7-0000-4000-8000-0000000000a1' }), loose),
        request_transforms: fc.array(transform, { maxLength: 12 }),
        response_transforms: fc.array(transform, { maxLength: 12 }),
        request_transform: fc.oneof(fc.constant(null), loose, fc.record({ code: loose }, { requiredKeys: [] })),
      },
      { requiredKeys: ['name', 'destination_url'] },
    );
    fc.assert(
      fc.property(body, snapshot, (b, application) => {
        outcomeOf(b, contextFor(b, application));
      }),
      { numRuns: 300 },
    );
  });
});

describe('proxy validation never reveals a secret', () => {
  /** Every secret carries this marker, which no setting name, message or path can otherwise contain. */
  const MARK = 'SECRET§';
  const secret = fc.string({ maxLength: 20 }).map((s) => `${MARK}${s}`);
  const settingName = fc.string({ unit: fc.constantFrom('a', 'b', '_', '1'), minLength: 1, maxLength: 4 });
  const path = fc.oneof(
    secret.map((s) => `$.${s}`),
    secret.map((s) => `$..${s}`),
    secret.map((s) => `$['${s}'`),
    secret.map((s) => `$[${s}]`),
    secret,
  );
  const transform = fc.oneof(
    fc.record({ type: fc.constant('code'), code: fc.oneof(secret, secret.map((s) => s.repeat(5000))) }),
    fc.record({ type: fc.constant('mask'), fields: fc.array(path, { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constant('tokenize'), fields: fc.array(fc.record({ json_path: path, token: fc.record({ type: fc.constant('token') }) }), { minLength: 1, maxLength: 3 }) }),
  );
  const body = fc.record({
    name: fc.constant('n'),
    destination_url: fc.oneof(secret, secret.map((s) => `https://api.example.com/${s}`), fc.webPath().map((p) => `ftp://api.example.com${p}?${MARK}`)),
    configuration: fc.dictionary(settingName, fc.oneof(secret, secret.map((s) => s.repeat(2000)), fc.integer(), fc.array(secret, { maxLength: 2 }))),
    request_transforms: fc.array(transform, { maxLength: 3 }),
    response_transform: fc.oneof(fc.constant(null), fc.record({ code: fc.oneof(secret, fc.constant('')) })),
  });

  it('in any message or field path', () => {
    fc.assert(
      fc.property(body, (b) => {
        expect(JSON.stringify(outcomeOf(b))).not.toContain(MARK);
      }),
      { numRuns: 500 },
    );
  });

  it('and the check finds leaks: the marker does reach a field path when a secret is sent as a setting name', () => {
    expect(JSON.stringify(outcomeOf({ name: 'n', destination_url: DESTINATION, configuration: { [`${MARK}x`]: 1 } }))).toContain(MARK);
  });
});

describe('a valid proxy restated as a body', () => {
  const path = fc.constantFrom('$', '$.card.number', '$.items[0].pan', "$['card number']", '$.a[-1]');
  const transform = fc.oneof(
    fc.record({ type: fc.constant('code' as const), code: fc.string({ minLength: 1 }).filter((s) => s.trim() !== '') }),
    fc.record({ type: fc.constant('mask' as const), fields: fc.array(path, { minLength: 1, maxLength: 3 }) }),
    fc.record({
      type: fc.constant('tokenize' as const),
      fields: fc.array(
        fc.record({
          json_path: path,
          token: fc.record(
            { type: fc.constantFrom('token', 'card_number'), containers: fc.constant(['/pci/']), metadata: fc.dictionary(fc.constantFrom('a', 'b'), fc.string()) },
            { requiredKeys: ['type'] },
          ),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  );
  const valid = fc.record({
    name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() !== ''),
    destination_url: fc.webPath().map((p) => `https://api.example.com${p}`),
    require_auth: fc.boolean(),
    application: fc.constant({ id: 'a7a7a7a7-0000-4000-8000-0000000000a1' }),
    configuration: fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), fc.string()),
    request_transforms: fc.array(transform, { maxLength: 3 }),
    response_transforms: fc.array(transform, { maxLength: 3 }),
  });

  it('validates back to the same proxy, so a patch of nothing changes nothing', () => {
    fc.assert(
      fc.property(valid, (body) => {
        const context = { tenantId: TENANT, application: anApplication(), hosts: ALLOWED_HOSTS };
        const proxy = validateProxyInput(body, context);
        expect(validateProxyInput(proxyBodyOf(proxy), context)).toEqual(proxy);
      }),
    );
  });
});
