// Reactor code as an attacker writes it, over HTTP: sandbox escapes, runaway code, huge results, state that would
// survive into the next invocation, a flood of invocations, and the fetch bridge's refusals. Each fault is a 422 with
// errors.reactor (or a 503 with Retry-After when the queue is full), and the service keeps answering other requests.
import { randomUUID } from 'node:crypto';
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:use'];
const TIMEOUT_MS = 1000;
/**
 * The reactor timeout of the fetch bridge's cases, which are about what the bridge refuses, not about time: long
 * enough that a busy machine's slow run (a fresh isolate, a local HTTP round trip, 2 MiB read) still ends as the code
 * decides.
 */
const FETCH_TIMEOUT_MS = 30_000;

/** An app under test and the key of an application allowed to use every token. */
interface Service {
  test: TestApp;
  caller: string;
}

describe('reactor code in the sandbox, over HTTP', () => {
  let test: TestApp;
  let allowed: LocalHttpServer;
  let forbidden: LocalHttpServer;
  let caller: string;
  const as = (key: string, on: TestApp = test) => asKey(on, key);
  /** The service's environment, with reactors stopped at `timeoutMs`. */
  const env = (timeoutMs: number) => ({
    VAULT_REACTOR_TIMEOUT_MS: String(timeoutMs),
    VAULT_REACTOR_CONCURRENCY: '2',
    VAULT_REACTOR_MEMORY_MB: '16',
    VAULT_REACTOR_ALLOWED_HOSTS: allowed.host,
    VAULT_RATE_LIMIT_PER_SECOND: '100000',
    VAULT_LOG_LEVEL: 'info',
  });
  const callerOf = async (on: TestApp) =>
    (await createApplication(on, { name: 'caller', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] })).key;
  /** A reactor (of the main app, or of `on`) whose formula exports `async function (req) { <body> }`. */
  const reactorOf = async (body: string, on: TestApp = test) => {
    const formula = await as(BOOTSTRAP_KEY, on).post('/reactor-formulas', {
      name: `Hostile ${randomUUID()}`,
      type: 'private',
      code: `module.exports = async function (req) { ${body} };`,
      configuration: [],
      request_parameters: [],
    });
    if (formula.status !== 201) throw new Error(`create formula: ${formula.status} ${JSON.stringify(formula.body)}`);
    const reactor = await as(BOOTSTRAP_KEY, on).post('/reactors', { name: 'Hostile', formula: { id: formula.body.id }, configuration: {} });
    if (reactor.status !== 201) throw new Error(`create reactor: ${reactor.status} ${JSON.stringify(reactor.body)}`);
    return reactor.body.id as string;
  };
  const react = (id: string, args: unknown = {}, on: Service = { test, caller }) => as(on.caller, on.test).post(`/reactors/${id}/react`, { args });
  /** GET /permissions, timed. */
  const permissions = async () => {
    const started = performance.now();
    const response = await as(caller).get('/permissions');
    return { status: response.status, ms: performance.now() - started };
  };

  beforeAll(async () => {
    allowed = await startLocalHttpServer((request, response) => {
      if (request.path === '/redirect') {
        response.statusCode = 302;
        response.setHeader('location', forbidden.url('/stolen'));
        response.end();
      } else if (request.path === '/big') {
        response.end('x'.repeat(2 * 1024 * 1024));
      } else {
        response.end(`hello ${request.method}`);
      }
    });
    forbidden = await startLocalHttpServer((_request, response) => {
      response.end('should never be reached');
    });
    test = await startTestApp(env(TIMEOUT_MS));
    caller = await callerOf(test);
  });
  afterAll(async () => {
    await test?.close();
    await allowed?.close();
    await forbidden?.close();
  });

  describe.each<[string, string, RegExp]>([
    ['process', 'return { raw: process.env };', /process is not defined/],
    ['require', "return { raw: require('fs').readFileSync('/etc/passwd', 'utf8') };", /require/],
    ['import()', "const fs = await import('fs'); return { raw: String(fs) };", /./],
    ["this.constructor.constructor('return process')()", "return { raw: this.constructor.constructor('return process')().env };", /process is not defined/],
    ['Function through a prototype', "return { raw: Object.getPrototypeOf(async () => {}).constructor('return process')() };", /./],
    ['Atomics.wait on a shared buffer', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return { raw: { n: 1 } };', /./],
    ['a promise that never resolves', 'await new Promise(() => {}); return { raw: { n: 1 } };', new RegExp(`${TIMEOUT_MS} ms`)],
    ['an endless loop', 'for (;;) {}', new RegExp(`${TIMEOUT_MS} ms`)],
    ['a heap that grows without end', 'const all = []; for (;;) all.push(new Array(100000).fill(all.length)); ', /./],
    ['a raw over 1 MiB', "return { raw: { s: 'x'.repeat(1024 * 1024 + 1) } };", /1 ?MiB|1048576|large/i],
  ])('%s', (_title, body, message) => {
    it('answers 422 with errors.reactor, while GET /permissions keeps answering', async () => {
      const id = await reactorOf(body);
      const reaction = react(id).then((response) => ({ response, at: performance.now() }));
      const polls: { status: number; ms: number; at: number }[] = [];
      let settled = false;
      void reaction.then(() => (settled = true));
      while (!settled) {
        polls.push({ ...(await permissions()), at: performance.now() });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const { response } = await reaction;
      expect(response.status).toBe(422);
      expect(response.body.errors.reactor).toEqual([expect.stringMatching(message)]);
      expect(polls.length).toBeGreaterThan(0);
      expect(polls.every((poll) => poll.status === 200)).toBe(true);
      expect(Math.max(...polls.map((poll) => poll.ms))).toBeLessThan(500);
      expect((await permissions()).status).toBe(200);
    }, 20_000);
  });

  it('keeps no state between invocations: globals and prototypes changed by one run are gone in the next', async () => {
    const tamper = await reactorOf(`
      globalThis.count = (globalThis.count || 0) + 1;
      Object.prototype.polluted = 'yes';
      Array.prototype.map = function () { return ['hijacked']; };
      JSON.stringify = () => '"hijacked"';
      return { raw: { count: globalThis.count } };`);
    const probe = await reactorOf(`return { raw: { count: globalThis.count ?? null, polluted: ({}).polluted ?? null, mapped: [1, 2].map((n) => n * 2), json: JSON.stringify({ a: 1 }) } };`);
    expect((await react(tamper)).body.raw).toEqual({ count: 1 });
    expect((await react(tamper)).body.raw).toEqual({ count: 1 });
    expect((await react(probe)).body.raw).toEqual({ count: null, polluted: null, mapped: [2, 4], json: '{"a":1}' });
  });

  it('answers 50 concurrent invocations of a slow reactor with 200 or 503 + Retry-After, and stays responsive', async () => {
    const slow = await reactorOf('const end = Date.now() + 150; while (Date.now() < end) {} return { raw: { done: true } };');
    const flood = Promise.all(Array.from({ length: 50 }, () => react(slow)));
    // GET /permissions queues behind the burst's own request handling at first, then answers at once while the
    // admitted reactors spin on isolated-vm's threads.
    const polls: Awaited<ReturnType<typeof permissions>>[] = [];
    for (let i = 0; i < 10; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      polls.push(await permissions());
    }
    const reactions = await flood;
    for (const response of reactions) {
      expect([200, 503]).toContain(response.status);
      if (response.status === 200) expect(response.body).toEqual({ tokens: null, raw: { done: true } });
      else expect(Number(response.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    const ok = reactions.filter((response) => response.status === 200).length;
    // Two run at once and eight wait (the queue is four times the concurrency); the rest are turned away.
    expect(ok).toBeGreaterThanOrEqual(2);
    expect(ok).toBeLessThan(50);
    expect(polls.map((poll) => poll.status)).toEqual(polls.map(() => 200));
    const sorted = polls.map((poll) => poll.ms).sort((a, b) => a - b);
    expect(sorted[sorted.length >> 1]).toBeLessThan(200);
    expect(sorted.at(-1)).toBeLessThan(3000);
    // Once the queue drains, the same reactor answers again.
    expect((await react(slow)).status).toBe(200);
  }, 30_000);

  describe('the fetch bridge', () => {
    // Its own app, with reactors stopped at FETCH_TIMEOUT_MS rather than TIMEOUT_MS.
    let patient: Service;
    let fetcher: string;
    beforeAll(async () => {
      const app = await startTestApp(env(FETCH_TIMEOUT_MS));
      patient = { test: app, caller: await callerOf(app) };
      fetcher = await reactorOf(`
        try {
          const response = await fetch(req.args.url, req.args.init);
          return { raw: { status: response.status, body: (await response.text()).slice(0, 50) } };
        } catch (error) {
          return { raw: { error: error.name + ': ' + error.message } };
        }`, patient.test);
    }, FETCH_TIMEOUT_MS);
    afterAll(() => patient?.test.close());

    it('reaches an allowed host', async () => {
      const response = await react(fetcher, { url: allowed.url('/hello'), init: { method: 'POST', body: 'x' } }, patient);
      expect(response.body.raw).toEqual({ status: 200, body: 'hello POST' });
    }, FETCH_TIMEOUT_MS * 2);

    it.each([
      ['a host not on the list', () => forbidden.url('/direct')],
      ['the allowed host on another port', () => forbidden.url('/port')],
      ['a redirect to a host not on the list', () => allowed.url('/redirect')],
      ['file:', () => 'file:///etc/passwd'],
      ['data:', () => 'data:text/plain,hello'],
      ['ftp:', () => `ftp://${allowed.host}/`],
      ['a response over the size cap', () => allowed.url('/big')],
    ])('refuses %s: the code catches the error, and nothing reaches the forbidden server', async (_title, url) => {
      const response = await react(fetcher, { url: url() }, patient);
      expect(response.status).toBe(200);
      expect(response.body.raw.error).toMatch(/^TypeError: /);
      expect(forbidden.received).toEqual([]);
    }, FETCH_TIMEOUT_MS * 2);

    it('surfaces a refusal the code does not catch as a 422', async () => {
      const careless = await reactorOf(`const response = await fetch(req.args.url); return { raw: { text: await response.text() } };`, patient.test);
      const response = await react(careless, { url: 'file:///etc/passwd' }, patient);
      expect(response.status).toBe(422);
      expect(response.body.errors.reactor).toEqual([expect.stringMatching(/fetch|scheme|file/i)]);
    }, FETCH_TIMEOUT_MS * 2);
  });

  it('logs no reactor error message, args or raw at any level', async () => {
    const marker = `Zq9-${randomUUID()}`;
    const thrower = await reactorOf(`throw new Error('leak ' + req.args.secret);`);
    const echo = await reactorOf('return { raw: req.args };');
    expect((await react(thrower, { secret: marker })).status).toBe(422);
    expect((await react(echo, { secret: marker })).status).toBe(200);
    expect(test.logs.join('\n')).not.toContain(marker);
  });
});
