// A fuzzer of JSON bodies, query strings, path ids, keys and headers against every route the API serves, plus a sweep of
// every body field at the extremes (deep nesting, long lists, prototype-named keys, code too deep to compile). Each
// request is valid (its free text fresh secrets), a valid one changed at one to three nodes at any depth, or hostile
// throughout; the resources it attacks are made anew after each success that may have changed or deleted them.
// On every response: no 5xx, and no error response holds any 6-character window of a secret sent (secrets start with
// the canary `Zq9` and use an alphabet our vocabulary never does; property names may be echoed as field paths, so
// secrets are only ever values). Successful responses may return what was stored, so they are not checked for echoes.
// After the run, no line of the service's log holds a window of any secret sent in a body, query or header.
// VAULT_FUZZ_RUNS sets the number of random requests per route (default 100).
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import fc from 'fast-check';
import { startTestApp, TestApp } from '../support/test-app';
import { Endpoint, ENDPOINTS, KeyRef, Method, nameOf } from './hostile-input/endpoints';
import {
  BodyText,
  changedBody,
  DEEP_CODE,
  EDGE_NUMBERS,
  hostileBody,
  nestedText,
  plainSecretText,
  PROTOTYPE_NAMES,
  validBody,
} from './hostile-input/hostile-values';
import { nodePaths, SECRET_MARK, treeOf } from './hostile-input/json-tree';
import { References } from './hostile-input/references';
import {
  ContentType,
  HeaderText,
  hostileContentType,
  hostileQuery,
  QueryText,
  secretHeader,
  strayHeader,
  strayId,
  validQuery,
} from './hostile-input/request-parts';
import { echoedWindow, linesHolding, SecretWindows } from './hostile-input/secret-windows';

const RUNS_PER_ROUTE = Number(process.env.VAULT_FUZZ_RUNS ?? 100);

type Key = { ref: KeyRef } | { none: true } | { secret: string };

interface FuzzedRequest {
  endpoint: Endpoint;
  /** null: the id of the endpoint's reference, as it is when the request is sent. */
  id: string | null;
  query: QueryText;
  key: Key;
  header: HeaderText | null;
  body: BodyText | null;
  contentType: ContentType;
}

const secretsOf = (request: FuzzedRequest): string[] => [
  ...request.query.secrets,
  ...(request.body?.secrets ?? []),
  ...('secret' in request.key ? [request.key.secret] : []),
  ...(request.header?.secrets ?? []),
  ...(request.body ? request.contentType.secrets : []),
];

const defaultType = (method: Method): ContentType => ({ value: method === 'patch' ? 'application/merge-patch+json' : 'application/json', secrets: [] });
const ownKey = (endpoint: Endpoint): Key => (endpoint.who === 'none' ? { none: true } : { ref: endpoint.who });
/** Someone else's key, none, or a secret; never the main tenant's admin where a success would delete that tenant. */
const otherKey = (endpoint: Endpoint): fc.Arbitrary<Key> =>
  fc.oneof(
    plainSecretText.map((secret): Key => ({ secret })),
    fc.constantFrom<Key>({ none: true }, { ref: 'privateKey' }, ...(endpoint.spends === 'tenantKey' ? [] : [{ ref: 'adminKey' as const }])),
  );
const queryTemplate = (endpoint: Endpoint) => fc.constantFrom(...(endpoint.queries ?? ['']));
const noBody = fc.constant<BodyText | null>(null);

/** A request that should succeed: the endpoint's own key and reference, a template with fresh secrets. */
const validRequest = (endpoint: Endpoint): fc.Arbitrary<FuzzedRequest> =>
  fc.record({
    endpoint: fc.constant(endpoint),
    id: fc.constant(null),
    query: queryTemplate(endpoint).chain(validQuery),
    key: fc.constant(ownKey(endpoint)),
    header: fc.constant(null),
    body: endpoint.bodies ? fc.oneof(...endpoint.bodies.map(validBody)) : noBody,
    contentType: fc.constant(defaultType(endpoint.method)),
  });

/** A valid request with a few changes: at nodes of its body at any depth, or to its query; now and then its id or key. */
const changedRequest = (endpoint: Endpoint): fc.Arbitrary<FuzzedRequest> =>
  fc.record({
    endpoint: fc.constant(endpoint),
    id: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: strayId }),
    query: endpoint.bodies ? queryTemplate(endpoint).chain(validQuery) : queryTemplate(endpoint).chain(validQuery).chain(hostileQuery),
    key: fc.oneof({ weight: 10, arbitrary: fc.constant(ownKey(endpoint)) }, { weight: 1, arbitrary: otherKey(endpoint) }),
    header: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: secretHeader }),
    body: endpoint.bodies ? fc.oneof(...endpoint.bodies.map(changedBody)) : noBody,
    contentType: fc.constant(defaultType(endpoint.method)),
  });

/** Anything: a body mutated everywhere, random JSON or broken text, any id, query, key and content type. */
const hostileRequest = (endpoint: Endpoint): fc.Arbitrary<FuzzedRequest> =>
  fc.record({
    endpoint: fc.constant(endpoint),
    id: fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: strayId }),
    query: hostileQuery(),
    key: fc.oneof({ weight: 12, arbitrary: fc.constant(ownKey(endpoint)) }, { weight: 2, arbitrary: otherKey(endpoint) }),
    header: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: strayHeader }),
    body: endpoint.bodies
      ? fc.oneof(...endpoint.bodies.map(hostileBody))
      : fc.oneof({ weight: 4, arbitrary: noBody }, { weight: 1, arbitrary: hostileBody({ reason: 'none' }) }),
    contentType: hostileContentType,
  });

/**
 * Each route's first templates as they are, sent first and twice: whatever the seed, the success path is reached, and
 * a deleting route's second success shows its victim was made anew.
 */
const firstValidRequests = (endpoint: Endpoint): [FuzzedRequest][] =>
  fc.sample(validRequest({ ...endpoint, bodies: endpoint.bodies?.slice(0, 1), queries: endpoint.queries?.slice(0, 1) }), 2).map((request) => [request]);

const requestFor = (endpoint: Endpoint): fc.Arbitrary<FuzzedRequest> =>
  fc.oneof({ weight: 2, arbitrary: validRequest(endpoint) }, { weight: 4, arbitrary: changedRequest(endpoint) }, { weight: 4, arbitrary: hostileRequest(endpoint) });

interface RouteStats {
  requests: number;
  succeeded: number;
  statuses: Map<number, number>;
  /** The nested nodes changed in bodies (`replace rules[2].permissions[0]`), to show they are reached. */
  nested: Set<string>;
}

describe('hostile input against every endpoint', () => {
  let test: TestApp;
  let refs: References;
  /** Every secret sent, for the log scan at the end. */
  const sent = new Set<string>();
  let requestsSent = 0;
  const stats = new Map<string, RouteStats>(ENDPOINTS.map((e) => [nameOf(e), { requests: 0, succeeded: 0, statuses: new Map(), nested: new Set() }]));

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '1000000', VAULT_LOG_LEVEL: 'debug' });
    refs = await References.start(test);
  });
  afterAll(() => test?.close());

  it('covers every route the controllers serve', () => {
    const served = [...test.app.get(ModulesContainer).values()].flatMap((module) =>
      [...module.controllers.values()].flatMap(({ metatype }) => {
        const controller = metatype as unknown as { prototype: Record<string, object> };
        const base: string = Reflect.getMetadata(PATH_METADATA, controller) ?? '';
        return Object.getOwnPropertyNames(controller.prototype)
          .map((name) => controller.prototype[name])
          .filter((handler) => typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
          .map((handler) => {
            const path = `/${base}/${Reflect.getMetadata(PATH_METADATA, handler)}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}');
            return `${RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler)]} ${path}`;
          });
      }),
    );
    expect(served.length).toBeGreaterThan(30);
    expect([...new Set(served)].sort()).toEqual(ENDPOINTS.map(nameOf).sort());
  });

  it('covers every path and method of the OpenAPI document', async () => {
    const doc = await test.http().get('/openapi.json');
    const documented = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((endpoint) => !ENDPOINTS.map(nameOf).includes(endpoint))).toEqual([]);
  });

  /** Sends the request to the references as they are now; then the invariants. */
  const check = async (request: FuzzedRequest, counted = false): Promise<void> => {
    const { endpoint } = request;
    const secrets = secretsOf(request);
    for (const secret of secrets) sent.add(secret);
    const id = request.id ?? (endpoint.id ? await refs.ready(endpoint.id) : '');
    const key = 'ref' in request.key ? await refs.ready(request.key.ref) : 'secret' in request.key ? request.key.secret : null;
    await refs.readyIn(`${request.query.text} ${request.body?.text ?? ''}`);

    const path = endpoint.path.replace('{id}', id) + refs.resolve(request.query.text);
    let call = test.http()[endpoint.method](path);
    if (key !== null) call = call.set('SVC-API-KEY', key);
    if (request.header) call = call.set(request.header.name, request.header.value);
    if (request.body) call = call.set('Content-Type', request.contentType.value).send(refs.resolve(request.body.text));
    const response = await call;

    if (response.status < 300 && endpoint.spends) refs.spend(endpoint.spends);
    if (counted) {
      const route = stats.get(nameOf(endpoint))!;
      route.requests++;
      route.statuses.set(response.status, (route.statuses.get(response.status) ?? 0) + 1);
      for (const change of request.body?.changed ?? []) if (change.depth >= 2) route.nested.add(change.what);
      if (response.status < 300) route.succeeded++;
    }

    const text = response.text ?? '';
    if (response.status >= 500) throw new Error(`${endpoint.method} ${path}: ${response.status}: ${text.slice(0, 300)}`);
    if (response.status >= 300) {
      const window = echoedWindow(`${text}\n${JSON.stringify(response.headers)}`, secrets);
      if (window !== null) throw new Error(`${endpoint.method} ${path}: ${response.status} echoes ${JSON.stringify(window)}: ${text.slice(0, 500)}`);
    }
  };

  it.each(ENDPOINTS.map((endpoint) => [nameOf(endpoint), endpoint] as const))(
    '%s: never a 5xx, never a secret in an error',
    async (_name, endpoint) => {
      await fc.assert(
        fc.asyncProperty(requestFor(endpoint), (request) => check(request, true)),
        { numRuns: RUNS_PER_ROUTE, examples: firstValidRequests(endpoint) },
      );
    },
    Math.max(120_000, RUNS_PER_ROUTE * 2_000),
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
  const sweep = ENDPOINTS.filter((e) => e.bodies !== undefined && !Array.isArray(e.bodies[0])).flatMap((endpoint) =>
    [...Object.keys(endpoint.bodies![0] as object), ...PROTOTYPE_NAMES].flatMap((field) =>
      EXTREMES.map(([what, text]) => [nameOf(endpoint), field, what, endpoint, text] as const),
    ),
  );

  it.each(sweep)('%s with %s as %s', async (_name, field, _what, endpoint, text) => {
    // The rest of the valid body, as JSON text: the extreme is then the only thing wrong with the body.
    const rest = Object.fromEntries(Object.entries(endpoint.bodies![0] as Record<string, unknown>).filter(([key]) => key !== field));
    const others = JSON.stringify(rest).slice(1, -1).replaceAll(SECRET_MARK, JSON.stringify(SECRET).slice(1, -1));
    expect(() => JSON.parse(`{${others}}`)).not.toThrow();
    const body = `{${others}${others ? ',' : ''}${JSON.stringify(field)}:${text}}`;
    await check({
      endpoint,
      id: null,
      query: { text: '', secrets: [] },
      key: ownKey(endpoint),
      header: null,
      body: { text: body, secrets: [SECRET], changed: [] },
      contentType: defaultType(endpoint.method),
    });
  });

  it('reached the success path of every route, and of every deleting one more than once', () => {
    const table = [...stats].map(([name, s]) => {
      const statuses = [...s.statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`).join(' ');
      return `${name.padEnd(36)} ${String(s.requests).padStart(5)} requests ${String(s.succeeded).padStart(4)} 2xx  nested nodes changed: ${String(s.nested.size).padStart(3)}  ${statuses}`;
    });
    const made = [...refs.made].map(([ref, n]) => `${ref} ${n}`).join(', ');
    console.log(`hostile input, ${RUNS_PER_ROUTE} random requests per route:\n${table.join('\n')}\nvictims made: ${made}`);
    for (const endpoint of ENDPOINTS) {
      const { succeeded } = stats.get(nameOf(endpoint))!;
      expect({ route: nameOf(endpoint), succeeded: Math.min(succeeded, endpoint.spends ? 2 : 1) }).toEqual({ route: nameOf(endpoint), succeeded: endpoint.spends ? 2 : 1 });
    }
  });

  it('changed nested nodes of every body that is mostly nested', () => {
    const mostlyNested = ENDPOINTS.filter((endpoint) => {
      const paths = (endpoint.bodies ?? []).flatMap((body) => nodePaths(treeOf(body)));
      return paths.length > 0 && paths.filter((path) => path.length >= 2).length >= paths.length / 2;
    });
    expect(mostlyNested.length).toBeGreaterThanOrEqual(8);
    expect(mostlyNested.filter((endpoint) => stats.get(nameOf(endpoint))!.nested.size === 0).map(nameOf)).toEqual([]);
  });

  const sentWindows = () => new SecretWindows(sent);

  it('logged no window of any secret sent in a body, query or header', () => {
    expect(sent.size).toBeGreaterThan(ENDPOINTS.length);
    // The log was captured: a line for every request at least.
    expect(test.logs.filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(requestsSent);
    const leaks = linesHolding(test.logs, sentWindows()).map(({ window, line }) => `${JSON.stringify(window)} in ${line.slice(0, 400)}`);
    expect(leaks).toEqual([]);
  });

  it('shows no window of any secret sent in the metrics', async () => {
    const metrics = await test.http().get('/metrics');
    expect(metrics.status).toBe(200);
    expect(linesHolding(metrics.text.split('\n'), sentWindows())).toEqual([]);
  });

  it('logged no unhandled error', () => {
    expect(test.logs.filter((line) => line.includes('"unhandled error"'))).toEqual([]);
  });
});
