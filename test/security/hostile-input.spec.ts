// A fuzzer of JSON bodies, query strings, path ids, keys and headers against every route the API serves, plus a sweep of
// every body field at the extremes (deep nesting, long lists, prototype-named keys, code too deep to compile). Each
// request is valid (its free text fresh secrets), a valid one changed at one to three nodes at any depth, or hostile
// throughout; the resources it attacks are made anew after each success that may have changed or deleted them.
// On every response: no 5xx, and no error response holds any 6-character window of a secret sent (secrets start with
// the canary `Zq9` and use an alphabet our vocabulary never does; property names may be echoed as field paths, so
// secrets are only ever values). Successful responses may return what was stored, so they are not checked for echoes.
// After the run, no line of the service's log holds a window of any secret sent in a body, query or header.
// ANY /proxy gets requests of its own, written byte by byte (hostile-input/proxy-requests.ts), to a destination that
// echoes them or misbehaves on request (fuzz-destination.ts): no 5xx of the vault's own but the 502 or 504 of a
// destination at fault, SVC-PROXY-ERROR: true on every answer the vault makes itself, and no key, proxy configuration
// or token data the caller may not read in any answer, log line or metric (hostile-input/proxy-checks.ts).
// VAULT_FUZZ_RUNS sets the number of random requests per route (default 100), VAULT_FUZZ_PROXY_RUNS those of ANY /proxy
// (default 400).
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
import { DESTINATION_FAULTS, MODES, PROXY_TIMEOUT_MS, startFuzzDestination } from './hostile-input/fuzz-destination';
import { stretchOf } from './hostile-input/proxy-checks';
import { invocation, ProxyFuzz } from './hostile-input/proxy-fuzz';
import { proxyRequestArb, type ProxyRequest } from './hostile-input/proxy-requests';
import { PROXY_SECRETS } from './hostile-input/references';
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import type { AddressInfo } from 'node:net';

const RUNS_PER_ROUTE = Number(process.env.VAULT_FUZZ_RUNS ?? 100);
const PROXY_RUNS = Number(process.env.VAULT_FUZZ_PROXY_RUNS ?? 400);
/** The methods a proxy is invoked with; the invocation routes are fuzzed by the proxy section, not through ENDPOINTS. */
const PROXY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const isInvocationRoute = (route: string) => /^[A-Z]+ \/proxy(\/|$)/.test(route);

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

  let destination: LocalHttpServer;
  /** An allowed destination with nothing listening. */
  let unreachable: string;
  /** The API's port, for requests written by hand. */
  let port: number;

  beforeAll(async () => {
    destination = await startFuzzDestination();
    const closed = await startLocalHttpServer(() => undefined);
    unreachable = closed.url('');
    await closed.close();
    test = await startTestApp({
      VAULT_RATE_LIMIT_PER_SECOND: '1000000',
      VAULT_LOG_LEVEL: 'debug',
      VAULT_PROXY_ALLOWED_HOSTS: `${destination.host},${new URL(unreachable).host}`,
      VAULT_PROXY_TIMEOUT_MS: String(PROXY_TIMEOUT_MS),
      VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND: '1000000',
      VAULT_WEBHOOK_ALLOWED_HOSTS: new URL(unreachable).host,
    });
    refs = await References.start(test, { destination: destination.url(''), unreachable });
    const server = test.app.getHttpServer();
    if (!server.address()) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    proxies = new ProxyFuzz(port, destination, refs, sent);
  });
  afterAll(async () => {
    await test?.close();
    await destination?.close();
  });

  it('covers every route the controllers serve', () => {
    const served = [...test.app.get(ModulesContainer).values()].flatMap((module) =>
      [...module.controllers.values()].flatMap(({ metatype }) => {
        const controller = metatype as unknown as { prototype: Record<string, object> };
        const base: string = Reflect.getMetadata(PATH_METADATA, controller) ?? '';
        return Object.getOwnPropertyNames(controller.prototype)
          .map((name) => controller.prototype[name])
          .filter((handler) => typeof handler === 'function' && Reflect.getMetadata(METHOD_METADATA, handler) !== undefined)
          .flatMap((handler) => {
            const paths: unknown = Reflect.getMetadata(PATH_METADATA, handler);
            return (Array.isArray(paths) ? paths : [paths]).map((one) => {
              const path = `/${base}/${one}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1').replace(/:(\w+)/g, '{$1}').replace(/\*(\w+)/g, '{$1}');
              return `${RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler)]} ${path}`;
            });
          });
      }),
    );
    expect(served.length).toBeGreaterThan(30);
    // ANY /proxy (whatever its handlers' shape) has the proxy section below.
    expect(served.filter(isInvocationRoute).length).toBeGreaterThan(0);
    expect([...new Set(served.filter((route) => !isInvocationRoute(route)))].sort()).toEqual(ENDPOINTS.map(nameOf).sort());
  });

  it('covers every path and method of the OpenAPI document', async () => {
    const doc = await test.http().get('/openapi.json');
    const documented = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((endpoint) => !ENDPOINTS.map(nameOf).includes(endpoint) && !isInvocationRoute(endpoint))).toEqual([]);
    const invocationMethods = documented.filter(isInvocationRoute).map((endpoint) => endpoint.split(' ')[0]);
    expect(invocationMethods.filter((method) => !PROXY_METHODS.includes(method))).toEqual([]);
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

  // ---- ANY /proxy ----

  let proxies: ProxyFuzz;
  const invoke = (request: ProxyRequest) => proxies.invoke(request);

  it.each(MODES.map((mode) => [mode] as const))('ANY /proxy to a destination in mode %s: its fault is a 502 or 504 of the vault\'s, anything else its own', async (mode) => {
    const answer = (await invoke(invocation({ target: `/proxy/mode/${mode}`, mode, what: `GET /proxy/mode/${mode}` })))!;
    const fault = DESTINATION_FAULTS[mode];
    if (fault) {
      expect({ status: answer.status, error: answer.headers['svc-proxy-error'] }).toEqual({ status: fault, error: 'true' });
    } else {
      expect(answer.headers['x-destination']).toBe('fuzz');
      expect(answer.status).toBe(Number(/^status(\d{3})$/.exec(mode)?.[1] ?? (mode === 'redirect' ? 302 : 200)));
    }
  });

  it('ANY /proxy to an allowed destination where nothing listens: a 502 of the vault\'s', async () => {
    const answer = (await invoke(invocation({ headers: [['SVC-API-KEY', '⟨useKey⟩'], ['SVC-PROXY-URL', '⟨unreachable⟩/gone']], unreachable: true })))!;
    expect({ status: answer.status, error: answer.headers['svc-proxy-error'] }).toEqual({ status: 502, error: 'true' });
  });

  it('ANY /proxy: a destination echoing what a transform built from the configuration, and token data the caller may not read, gets neither back', async () => {
    const answer = (await invoke(
      invocation({
        method: 'POST',
        headers: [['SVC-API-KEY', '⟨useKey⟩'], ['SVC-PROXY-KEY', '⟨proxyKey⟩'], ['Content-Type', 'application/json'], ['X-Card', '{{ ⟨proxyToken⟩ }}']],
        body: { text: '{"x":"{{ ⟨proxyToken⟩ }}"}', coding: 'utf8', framing: 'length' },
      }),
    ))!;
    expect(answer.status).toBe(200);
    const echoed = JSON.parse(answer.body.toString('utf8')) as { headers: Record<string, string>; body: string };
    // It did reach the destination: the values were there to withhold.
    expect(echoed.headers.authorization).toBeDefined();
    expect(echoed.headers['x-card']).toBe('[redacted]');
    expect(stretchOf(answer.body.toString('utf8'), PROXY_SECRETS.tokenData)).toBeNull();
  });

  it(
    `ANY /proxy: ${PROXY_RUNS} hostile invocations, never a 5xx but a destination's fault, SVC-PROXY-ERROR on the vault's own answers, no key, configuration or token data in any`,
    async () => {
      // No shrinking: each request may wait for a slow destination, and the failing one is printed whole.
      await fc.assert(fc.asyncProperty(proxyRequestArb, async (request) => void (await invoke(request))), { numRuns: PROXY_RUNS, endOnFailure: true });
      console.log(proxies.summary());
      // Both sides were reached: answers passed on from the destination, and refusals of the vault's own.
      expect(proxies.origins.get('destination') ?? 0).toBeGreaterThan(PROXY_RUNS / 20);
      expect(proxies.origins.get('vault') ?? 0).toBeGreaterThan(PROXY_RUNS / 5);
    },
    Math.max(300_000, PROXY_RUNS * 1_500),
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

  it('logged and counted no key, proxy configuration or token data', async () => {
    const hidden = await proxies.hidden();
    const metrics = await test.http().get('/metrics');
    const found = [...test.logs, metrics.text].flatMap((text) =>
      Object.entries(hidden).flatMap(([name, value]) => {
        const stretch = stretchOf(text, value);
        return stretch === null ? [] : [`${name} (${JSON.stringify(stretch)}) in ${text.slice(0, 300)}`];
      }),
    );
    expect(found).toEqual([]);
  });

  it('logged no unhandled error', () => {
    expect(test.logs.filter((line) => line.includes('"unhandled error"'))).toEqual([]);
  });
});
