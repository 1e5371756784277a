// A fuzzer of JSON bodies, query strings, path ids and keys against every endpoint of the running app, plus a sweep of
// every body field at the extremes (deep nesting, long lists, prototype-named keys, code too deep to compile). On every
// response: no 5xx, and no error response holds any 6-character window of a string value sent as a "secret" (secrets
// start with the canary `Zq9` and use an alphabet our vocabulary never does; property names may be echoed as field
// paths, so secrets are only ever values). Successful responses may return what was stored, so they are not checked
// for echoes. VAULT_FUZZ_RUNS sets the total number of random runs (default 240, spread over the endpoints).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { MANAGEMENT_PERMISSIONS } from '@vault/domain';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const TOTAL_RUNS = Number(process.env.VAULT_FUZZ_RUNS ?? 240);
const WINDOW = 6;
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__'];
const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];

// ---------------------------------------------------------------------------------------------------------------
// JSON trees serialised by hand, so `__proto__` stays an own key, numbers keep their exact text and deep nesting
// costs no recursion here.

type Json =
  | { t: 'obj'; entries: [string, Json][] }
  | { t: 'arr'; items: Json[] }
  | { t: 'str'; value: string }
  | { t: 'secret'; value: string }
  | { t: 'raw'; text: string; secrets?: string[] };

const raw = (text: string, secrets?: string[]): Json => ({ t: 'raw', text, secrets });

/** A request value: the JSON text and the secrets inside it. */
const serialise = (json: Json, secrets: string[]): string => {
  switch (json.t) {
    case 'obj':
      return `{${json.entries.map(([key, value]) => `${JSON.stringify(key)}:${serialise(value, secrets)}`).join(',')}}`;
    case 'arr':
      return `[${json.items.map((item) => serialise(item, secrets)).join(',')}]`;
    case 'str':
      return JSON.stringify(json.value);
    case 'secret':
      secrets.push(json.value);
      return JSON.stringify(json.value);
    case 'raw':
      secrets.push(...(json.secrets ?? []));
      return json.text;
  }
};

/** A plain JS value (a valid body) as a tree, to be mutated. */
const treeOf = (value: unknown): Json => {
  if (Array.isArray(value)) return { t: 'arr', items: value.map(treeOf) };
  if (value !== null && typeof value === 'object') return { t: 'obj', entries: Object.entries(value).map(([k, v]) => [k, treeOf(v)]) };
  if (typeof value === 'string') return { t: 'str', value };
  return raw(JSON.stringify(value));
};

// ---------------------------------------------------------------------------------------------------------------
// Leaves

/** Letters and digits in a mix no message of ours has; bodies also get NUL, lone surrogates, quotes, a line separator. */
const SECRET_LETTERS = [...'ABCDEFGHJKLMNPQRTUVWXYZbdfhjkmnpqrtvwxz2345678'];
const secretOf = (units: string[]) =>
  fc.string({ unit: fc.constantFrom(...units), minLength: WINDOW, maxLength: 24 }).map((tail) => `Zq9${tail}`);
/** For JSON bodies. */
const secretText = secretOf([...SECRET_LETTERS, '\u0000', '\ud800', '\udfff', '"', '\\', '\u2028', 'é']);
/** For URLs (percent-encoded, so no lone surrogate) and headers (visible ASCII only). */
const urlSecretText = secretOf([...SECRET_LETTERS, '\u0000', '"', 'é', '&', '=', '/', '%']);
const headerSecretText = secretOf(SECRET_LETTERS);
const secret: fc.Arbitrary<Json> = secretText.map((value) => ({ t: 'secret', value }));

const EDGE_NUMBERS = ['1e308', '-1e308', '-0', '0', '-1', '1.5', '9007199254740993', '99999999999999999999', '4611686018427387904', '1e-400', '2147483648'];
/** Code the JavaScript parser cannot compile without overflowing its stack. */
const DEEP_CODE = `module.exports = async () => ${'('.repeat(20_000)}1${')'.repeat(20_000)};`;
const nestedText = (depth: number, kind: 'array' | 'object') =>
  kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const hostileLeaf: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: secret },
  { weight: 2, arbitrary: fc.constantFrom(...EDGE_NUMBERS, 'true', 'false', 'null').map((text) => raw(text)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', ' ', '\u0000', '\ud800', 'a\udfffb', '\u0000\u0000', '/', '/a/', 'token:read', 'x'.repeat(5_000), DEEP_CODE).map(
      (value): Json => ({ t: 'str', value }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom(63, 64, 65, 100_000, 100_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
      .map(([depth, kind]) => raw(nestedText(kind === 'object' ? Math.min(depth, 60_000) : depth, kind))),
  },
  {
    weight: 1,
    // Long lists, bounded so a body stays under 1 MiB: numbers, prototype-keyed objects, or secrets.
    arbitrary: fc
      .tuple(fc.constantFrom(31, 101, 201, 1_000, 20_000), fc.constantFrom('1', '{"constructor":1}', '"token:read"', 'secret'), secretText)
      .map(([length, item, text]) =>
        item === 'secret'
          ? raw(`[${Array.from({ length: Math.min(length, 1_000) }, () => JSON.stringify(text)).join(',')}]`, [text])
          : raw(`[${Array.from({ length }, () => item).join(',')}]`),
      ),
  },
);

const keyName = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
  { weight: 1, arbitrary: fc.constantFrom('name', 'type', 'data', 'rules', 'permissions', 'metadata', 'query', 'page', 'size', 'code', 'id', 'status') },
  { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
);

/** Any JSON value, with prototype-named keys at every level and hostile leaves. */
const hostileValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: hostileLeaf },
    { weight: 1, arbitrary: fc.array(fc.tuple(keyName, tie('value')), { maxLength: 4 }).map((entries): Json => ({ t: 'obj', entries })) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((items): Json => ({ t: 'arr', items })) },
  ),
})).value;

/**
 * A valid body mutated at every level: each property kept (and mutated inside), replaced by a hostile value or
 * removed; extra properties (prototype names first among them) added; list elements repeated into long lists. Only
 * the outermost list on a path is repeated into a long one: repeats multiply, and 101 × 101 × a long leaf would be a
 * body no string can hold.
 */
const mutated = (template: Json, longLists = true): fc.Arbitrary<Json> => {
  if (template.t === 'obj') {
    const entries = template.entries.map(([key, value]) =>
      fc.oneof(
        { weight: 3, arbitrary: mutated(value, longLists).map((v): [string, Json] | null => [key, v]) },
        { weight: 2, arbitrary: hostileValue.map((v): [string, Json] | null => [key, v]) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
    );
    return fc
      .tuple(fc.tuple(...entries), fc.array(fc.tuple(keyName, hostileValue), { maxLength: 2 }))
      .map(([kept, extra]): Json => ({ t: 'obj', entries: [...kept.filter((e): e is [string, Json] => e !== null), ...extra] }));
  }
  if (template.t === 'arr') {
    if (template.items.length === 0) return fc.array(hostileValue, { maxLength: 3 }).map((items): Json => ({ t: 'arr', items }));
    return fc
      .tuple(
        fc.tuple(...template.items.map((item) => mutated(item, false))),
        longLists ? fc.constantFrom(1, 1, 1, 2, 31, 101) : fc.constantFrom(1, 1, 2),
      )
      .map(([items, times]): Json => ({ t: 'arr', items: Array.from({ length: times }, () => items).flat() }));
  }
  return fc.oneof({ weight: 3, arbitrary: fc.constant(template) }, { weight: 1, arbitrary: hostileLeaf });
};

/** What a body is: a mutated valid body, random JSON, or text that is not JSON at all (with secrets inside). */
const bodyText = (template: unknown): fc.Arbitrary<{ text: string; secrets: string[] }> => {
  const fromTree = (tree: fc.Arbitrary<Json>) =>
    tree.map((json) => {
      const secrets: string[] = [];
      return { text: serialise(json, secrets), secrets };
    });
  const valid = fromTree(mutated(treeOf(template)));
  const broken = fc.tuple(valid, fc.nat(), fc.constantFrom('cut', 'single-quote', 'garbage')).map(([{ text, secrets }, at, how]) => {
    const position = text.length === 0 ? 0 : at % text.length;
    const broke = how === 'cut' ? text.slice(0, position) : how === 'single-quote' ? text.replaceAll('"Zq9', "'Zq9") : `${text.slice(0, position)}@${text.slice(position)}`;
    return { text: broke, secrets };
  });
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 2, arbitrary: fromTree(hostileValue) }, { weight: 2, arbitrary: broken });
};

// ---------------------------------------------------------------------------------------------------------------
// Query strings, path ids, keys

const QUERY_NAMES = ['page', 'size', 'name', 'application_type', 'page[]', 'size[0]', 'name[]', 'name[x]', ...PROTOTYPE_NAMES];
const QUERY_VALUES = ['1', '0', '-1', '20', '0x10', '1e1', '1e308', '99999999999999999999', '4611686018427387904', '1000000000', '1000000001', '', ' 5', '%FF', '%00', '*', 'private', 'a*b'];

const queryString: fc.Arbitrary<{ text: string; secrets: string[] }> = fc
  .array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...QUERY_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) }),
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES).map((v) => ({ v, secret: false })) }, { weight: 1, arbitrary: urlSecretText.map((v) => ({ v, secret: true })) }),
      fc.boolean(),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => {
    const secrets = pairs.filter(([, value]) => value.secret).map(([, value]) => value.v);
    const text = pairs
      .map(([name, { v, secret: isSecret }, encode]) => `${encode ? encodeURIComponent(name) : name}=${encode || isSecret ? encodeURIComponent(v) : v}`)
      .join('&');
    return { text: text ? `?${text}` : '', secrets };
  });

interface World {
  adminKey: string;
  privateKey: string;
  /** The management key of a tenant of its own, which DELETE /tenants/self deletes (its later requests are 401s). */
  victimTenantKey: string;
  ids: Record<'token' | 'formula' | 'application' | 'victimToken' | 'victimFormula' | 'victimApplication' | 'reactor' | 'victimReactor', string>;
}

type IdKind = keyof World['ids'];

/** The real id of `kind` most of the time, else another UUID, a malformed one, or a secret. */
const pathId = (world: () => World, kind: IdKind) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(kind).map((k) => world().ids[k]) },
    { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: fc.constantFrom('not-a-uuid', '%FF', '%00', '..', '00000000-0000-0000-0000-00000000000g') },
    { weight: 1, arbitrary: urlSecretText.map((s) => encodeURIComponent(s)) },
  );

// ---------------------------------------------------------------------------------------------------------------
// Endpoints

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Who = 'admin' | 'private' | 'victimTenant' | 'none';

interface Endpoint {
  method: Method;
  /** OpenAPI path: `{id}` is replaced by a fuzzed id of `id`'s kind. */
  path: string;
  id?: IdKind;
  who: Who;
  /** A valid body to mutate; absent: the endpoint takes none (one is still sent now and then). */
  body?: unknown;
}

const applicationBody = {
  name: 'fuzzed',
  type: 'private',
  permissions: ['token:read', 'token:search'],
  rules: [{ description: 'all', priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] }],
  expires_at: null,
};
const tokenBody = {
  type: 'social_security_number',
  data: '123-45-6789',
  containers: ['/pii/high/'],
  metadata: { customer: 'acme', region: 'eu' },
  search_indexes: ['{{ data }}', '{{ data | last4 }}'],
  fingerprint_expression: "{{ data | remove: '-' }}",
  mask: '{{ data | reveal_last: 4 }}',
  deduplicate_token: false,
  expires_at: '2999-01-01T00:00:00Z',
};
const patchBody = { data: '987-65-4321', containers: ['/pii/'], metadata: { customer: null, tier: 'gold' }, mask: '{{ data | last4 }}', expires_at: null };
const searchBody = { query: 'type:token AND metadata.customer:acme', page: 1, size: 20 };
const PNG = 'data:image/png;base64,' + readFileSync(join(__dirname, '../../formulas/official/mask-email.json'), 'utf8').match(/base64,([^"]+)/)![1];
const formulaBody = {
  name: 'Fuzzed formula',
  description: 'fuzzed',
  type: 'private',
  icon: PNG,
  code: 'module.exports = async function (req) { return { raw: req.args }; };',
  configuration: [{ name: 'region', description: 'where', type: 'string' }],
  request_parameters: [{ name: 'card.number', description: 'PAN', type: 'string', optional: false }],
};
// Reactors run on the official Mask Email formula (imported in beforeAll), whose id is fixed in its file.
const MASK_EMAIL = JSON.parse(readFileSync(join(__dirname, '../../formulas/official/mask-email.json'), 'utf8'));
const reactorUpdateBody = { name: 'Fuzzed reactor', configuration: { mask_character: '*', reveal_domain: true }, application: null };
const reactorBody = { ...reactorUpdateBody, formula: { id: MASK_EMAIL.id } };
const reactorPatchBody = { name: 'Patched', configuration: { mask_character: '#', reveal_domain: null }, application: null };
// The Mask Email reactor, invoked with an address; its 422 message is fixed text that never quotes the args.
const reactBody = { args: { email: 'jane.doe@example.com' } };

// Tokenize walks any object or array; detokenize reads expressions of a token id that does not exist (a 400 path).
const tokenizeBody = { card: tokenBody, notes: ['text', 42, true, null], nested: { leaf: 'x', list: [{ type: 'token', data: { a: 1 } }] } };
const DETOKENIZE_ID = '9e6c9a4e-5e31-4b6f-9a3c-2f1d6f0f7a11';
const detokenizeBody = { card: `{{ ${DETOKENIZE_ID} }}`, text: `x {{ token: ${DETOKENIZE_ID} | json: '$.a' | last4 }} y`, n: 5, list: [null, 'plain'] };

const ENDPOINTS: Endpoint[] = [
  { method: 'get', path: '/permissions', who: 'private' },
  { method: 'post', path: '/applications', who: 'admin', body: applicationBody },
  { method: 'get', path: '/applications', who: 'admin' },
  { method: 'get', path: '/applications/{id}', id: 'application', who: 'admin' },
  { method: 'put', path: '/applications/{id}', id: 'victimApplication', who: 'admin', body: applicationBody },
  { method: 'delete', path: '/applications/{id}', id: 'victimApplication', who: 'admin' },
  { method: 'post', path: '/applications/{id}/regenerate', id: 'victimApplication', who: 'admin' },
  { method: 'post', path: '/tokens', who: 'private', body: tokenBody },
  { method: 'post', path: '/tokens/search', who: 'private', body: searchBody },
  { method: 'get', path: '/tokens/{id}', id: 'token', who: 'private' },
  { method: 'patch', path: '/tokens/{id}', id: 'token', who: 'private', body: patchBody },
  { method: 'delete', path: '/tokens/{id}', id: 'victimToken', who: 'private' },
  { method: 'post', path: '/tokenize', who: 'private', body: tokenizeBody },
  { method: 'post', path: '/tokens/tokenize', who: 'private', body: tokenizeBody },
  { method: 'post', path: '/detokenize', who: 'private', body: detokenizeBody },
  { method: 'post', path: '/reactor-formulas', who: 'admin', body: formulaBody },
  { method: 'get', path: '/reactor-formulas', who: 'admin' },
  { method: 'get', path: '/reactor-formulas/{id}', id: 'formula', who: 'admin' },
  { method: 'put', path: '/reactor-formulas/{id}', id: 'formula', who: 'admin', body: formulaBody },
  { method: 'put', path: '/reator-formula/{id}', id: 'formula', who: 'admin', body: formulaBody },
  { method: 'delete', path: '/reactor-formulas/{id}', id: 'victimFormula', who: 'admin' },
  { method: 'post', path: '/reactors', who: 'admin', body: reactorBody },
  { method: 'get', path: '/reactors', who: 'admin' },
  { method: 'get', path: '/reactors/{id}', id: 'reactor', who: 'admin' },
  { method: 'put', path: '/reactors/{id}', id: 'reactor', who: 'admin', body: reactorUpdateBody },
  { method: 'patch', path: '/reactors/{id}', id: 'reactor', who: 'admin', body: reactorPatchBody },
  { method: 'delete', path: '/reactors/{id}', id: 'victimReactor', who: 'admin' },
  { method: 'post', path: '/reactors/{id}/react', id: 'reactor', who: 'private', body: reactBody },
  { method: 'get', path: '/logs', who: 'admin' },
  { method: 'get', path: '/tenants/self', who: 'admin' },
  { method: 'put', path: '/tenants/self', who: 'admin', body: { name: 'Fuzzed tenant' } },
  { method: 'delete', path: '/tenants/self', who: 'victimTenant' },
  { method: 'get', path: '/health', who: 'none' },
  { method: 'get', path: '/health/live', who: 'none' },
  { method: 'get', path: '/health/ready', who: 'none' },
];

interface FuzzedRequest {
  method: Method;
  path: string;
  key: string | null;
  body: { text: string; secrets: string[] } | null;
  contentType: string;
  secrets: string[];
}

const requestFor = (endpoint: Endpoint, world: () => World): fc.Arbitrary<FuzzedRequest> =>
  fc
    .record({
      id: endpoint.id ? pathId(world, endpoint.id) : fc.constant(''),
      query: queryString,
      body:
        endpoint.body !== undefined
          ? bodyText(endpoint.body).map((b): FuzzedRequest['body'] => b)
          : fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: bodyText({ reason: 'none' }) }),
      key: fc.oneof(
        { weight: 12, arbitrary: fc.constant<{ key: Who | 'secret'; text?: string }>({ key: endpoint.who }) },
        { weight: 1, arbitrary: headerSecretText.map((text) => ({ key: 'secret' as const, text })) },
        { weight: 1, arbitrary: fc.constantFrom<Who>('admin', 'private', 'none').map((key) => ({ key })) },
      ),
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/merge-patch+json', 'text/plain', 'application/json; charset=latin1'),
    })
    .map(({ id, query, body, key, contentType }) => {
      const w = world();
      const apiKey =
        key.key === 'secret'
          ? key.text!
          : key.key === 'admin'
            ? w.adminKey
            : key.key === 'private'
              ? w.privateKey
              : key.key === 'victimTenant'
                ? w.victimTenantKey
                : null;
      return {
        method: endpoint.method,
        path: endpoint.path.replace('{id}', id) + query.text,
        key: apiKey,
        body,
        contentType,
        secrets: [...query.secrets, ...(body?.secrets ?? []), ...(key.key === 'secret' ? [key.text!] : [])],
      };
    });

// ---------------------------------------------------------------------------------------------------------------
// Invariants

/** Every string in a parsed JSON value, keys included; iterative. */
const stringsIn = (value: unknown): string[] => {
  const out: string[] = [];
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node === 'string') out.push(node);
    else if (Array.isArray(node)) pending.push(...node);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        out.push(key);
        pending.push(child);
      }
    }
  }
  return out;
};

/** The first window of a secret found in the response, or null. */
const echoedWindow = (text: string, secrets: string[]): string | null => {
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  const haystacks = [text, ...stringsIn(parsed)];
  for (const secret of secrets) {
    for (let i = 0; i + WINDOW <= secret.length; i++) {
      const window = secret.slice(i, i + WINDOW);
      if (haystacks.some((haystack) => haystack.includes(window))) return window;
    }
  }
  return null;
};

describe('hostile input against every endpoint', () => {
  let test: TestApp;
  let world: World;
  const current = () => world;

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '1000000', VAULT_LOG_LEVEL: 'warn' });
    const admin = await createApplication(test, { name: 'fuzz admin', type: 'management', permissions: [...MANAGEMENT_PERMISSIONS] });
    const holder = await createApplication(test, {
      name: 'fuzz tokens',
      type: 'private',
      permissions: TOKEN_PERMISSIONS,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: TOKEN_PERMISSIONS }],
    });
    const victim = await createApplication(test, { name: 'fuzz victim', type: 'private', permissions: ['token:read'] }, admin.key);
    await test.app.get(VaultBus).execute(new ImportOfficialFormulaCommand(MASK_EMAIL, { type: 'operator', id: 'fuzz' }, 'fuzz'));
    const post = (key: string, path: string, body: object) => test.http().post(path).set('SVC-API-KEY', key).send(body);
    const created = async (response: Promise<{ status: number; body: { id: string } }>) => {
      const { status, body } = await response;
      if (status !== 201) throw new Error(`set-up: ${status} ${JSON.stringify(body)}`);
      return body.id;
    };
    world = {
      adminKey: admin.key,
      privateKey: holder.key,
      victimTenantKey: (await createTenant(test, 'fuzz victim tenant')).management_key,
      ids: {
        token: await created(post(holder.key, '/tokens', { type: 'token', data: { a: 1 } })),
        victimToken: await created(post(holder.key, '/tokens', { type: 'token', data: 'victim' })),
        formula: await created(post(admin.key, '/reactor-formulas', formulaBody)),
        victimFormula: await created(post(admin.key, '/reactor-formulas', { ...formulaBody, name: 'victim' })),
        application: holder.id,
        victimApplication: victim.id,
        reactor: await created(post(admin.key, '/reactors', reactorBody)),
        victimReactor: await created(post(admin.key, '/reactors', { ...reactorBody, name: 'victim' })),
      },
    };
  });
  afterAll(() => test?.close());

  it('covers every path and method of the OpenAPI document', async () => {
    const doc = await test.http().get('/openapi.json');
    const documented = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method} ${path}`),
    );
    const fuzzed = ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(documented.filter((endpoint) => !fuzzed.includes(endpoint))).toEqual([]);
  });

  /** The same invariants, on one request. */
  const check = async (request: FuzzedRequest): Promise<void> => {
    let call = test.http()[request.method](request.path);
    if (request.key !== null) call = call.set('SVC-API-KEY', request.key);
    if (request.body) call = call.set('Content-Type', request.contentType).send(request.body.text);
    const response = await call;
    const text = response.text ?? '';
    if (response.status >= 500) throw new Error(`${request.method} ${request.path}: ${response.status}: ${text.slice(0, 300)}`);
    if (response.status >= 300) {
      const window = echoedWindow(text, request.secrets);
      if (window !== null) throw new Error(`${request.method} ${request.path}: ${response.status} echoes ${JSON.stringify(window)}: ${text.slice(0, 500)}`);
    }
  };

  const runsPerEndpoint = Math.max(4, Math.ceil(TOTAL_RUNS / ENDPOINTS.length));

  it.each(ENDPOINTS.map((endpoint) => [`${endpoint.method.toUpperCase()} ${endpoint.path}`, endpoint] as const))(
    '%s: never a 5xx, never a secret in an error',
    async (_name, endpoint) => {
      await fc.assert(fc.asyncProperty(requestFor(endpoint, current), check), { numRuns: runsPerEndpoint });
    },
    60_000,
  );

  // Besides the random runs: every top-level field of every body, and the body itself, at the extremes.
  const SECRET = 'Zq9TRXBKMW\u0000PLDH';
  const EXTREMES: [string, string][] = [
    ['100,000 nested arrays', nestedText(100_000, 'array')],
    ['60,000 nested objects', nestedText(60_000, 'object')],
    ['20,000 objects with a constructor key', `[${Array.from({ length: 20_000 }, () => '{"constructor":1}').join(',')}]`],
    ['an object of prototype-named keys holding secrets', `{${PROTOTYPE_NAMES.map((name) => `${JSON.stringify(name)}:${JSON.stringify(SECRET)}`).join(',')}}`],
    ['a secret', JSON.stringify(SECRET)],
    ['edge numbers', `[${EDGE_NUMBERS.join(',')}]`],
    ['code nesting 20,000 parentheses', JSON.stringify(DEEP_CODE)],
    ['a single-quoted secret, which is not JSON', `'${SECRET}'`],
  ];
  const sweep = ENDPOINTS.filter((e) => e.body !== undefined).flatMap((endpoint) =>
    [...Object.keys(endpoint.body as object), ...PROTOTYPE_NAMES].flatMap((field) =>
      EXTREMES.map(([what, text]) => [`${endpoint.method.toUpperCase()} ${endpoint.path}`, field, what, endpoint, text] as const),
    ),
  );

  it.each(sweep)('%s with %s as %s', async (_name, field, _what, endpoint, text) => {
    // The rest of the valid body, as JSON text: the extreme is then the only thing wrong with the body.
    const rest = Object.fromEntries(Object.entries(endpoint.body as Record<string, unknown>).filter(([key]) => key !== field));
    const others = JSON.stringify(rest).slice(1, -1);
    expect(() => JSON.parse(`{${others}}`)).not.toThrow();
    const body = `{${others}${others ? ',' : ''}${JSON.stringify(field)}:${text}}`;
    await check({
      method: endpoint.method,
      path: endpoint.path.replace('{id}', endpoint.id ? world.ids[endpoint.id] : ''),
      key: endpoint.who === 'admin' ? world.adminKey : endpoint.who === 'victimTenant' ? world.victimTenantKey : world.privateKey,
      body: { text: body, secrets: [] },
      contentType: endpoint.method === 'patch' ? 'application/merge-patch+json' : 'application/json',
      secrets: [SECRET],
    });
  });

  it('logged no unhandled error', () => {
    expect(test.logs.filter((line) => line.includes('"unhandled error"'))).toEqual([]);
  });
});
