// Reactor code that V8 cannot stop from inside (isolated-vm's timeout and dispose miss JSON.parse, String#normalize and
// Intl loops) or whose memory the isolate does not count (ICU), against the built service: each run is answered 422
// at its wall time or memory bound, its slot serves the next invocation, SIGTERM still ends the service, and nothing
// of the run reaches the service's output.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiProcess, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'react-kill-bootstrap-key-0123456789abcdef';
const ALL = ['token:create', 'token:read', 'token:use'];
const TIMEOUT_MS = 2000;
/** The reactor timeout of the memory case: far beyond the time the hog takes to pass the memory bound. */
const MEMORY_CASE_TIMEOUT_MS = 60_000;
const SECRET_ARG = 'Zq9-arg-4242-secret';

const STUCK: [string, string][] = [
  ['JSON.parse in a loop', "const s = JSON.stringify(Array.from({ length: 3e4 }, (_, i) => ({ a: i, b: 'x' + i }))); for (;;) JSON.parse(s);"],
  ["String#normalize('NFC') in a loop", "const s = 'e\\u0301'.repeat(2e6); for (;;) s.normalize('NFC');"],
  ['Intl.Collator#compare in a loop', "const a = 'a'.repeat(3e6), b = 'a'.repeat(3e6 - 1) + 'b'; const c = new Intl.Collator('en'); for (;;) c.compare(a, b);"],
];

/** A built service with one reactor slot and the given reactor timeout, its caller's key, and a trivial reactor, run once. */
interface Service {
  dataDir: string;
  api: ApiProcess;
  caller: string;
  trivial: string;
}

const call = (service: Service, path: string, key: string, body?: unknown) =>
  fetch(service.api.url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const reactorOf = async (service: Service, body: string): Promise<string> => {
  const formula = await call(service, '/reactor-formulas', BOOTSTRAP, {
    name: `Stuck ${randomUUID()}`,
    type: 'private',
    code: `module.exports = async function (req) { ${body} };`,
    configuration: [],
    request_parameters: [],
  });
  if (formula.status !== 201) throw new Error(`create formula: ${formula.status} ${await formula.text()}`);
  const reactor = await call(service, '/reactors', BOOTSTRAP, { name: 'Stuck', formula: { id: ((await formula.json()) as { id: string }).id }, configuration: {} });
  if (reactor.status !== 201) throw new Error(`create reactor: ${reactor.status} ${await reactor.text()}`);
  return ((await reactor.json()) as { id: string }).id;
};

const react = async (service: Service, id: string) => {
  const started = performance.now();
  const response = await call(service, `/reactors/${id}/react`, service.caller, { args: { card: SECRET_ARG } });
  return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started, retryAfter: response.headers.get('retry-after') };
};

const stopService = async (service: Service | undefined): Promise<void> => {
  if (!service) return;
  await service.api.stop('SIGKILL');
  rmSync(service.dataDir, { recursive: true, force: true });
};

const startService = async (timeoutMs: number): Promise<Service> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vault-react-kill-'));
  const api = await startApiProcess({
    VAULT_DATA_DIR: dataDir,
    VAULT_BOOTSTRAP_KEY: BOOTSTRAP,
    VAULT_RATE_LIMIT_PER_SECOND: '100000',
    VAULT_REACTOR_TIMEOUT_MS: String(timeoutMs),
    VAULT_REACTOR_CONCURRENCY: '1',
    VAULT_REACTOR_MEMORY_MB: '32',
    VAULT_LOG_LEVEL: 'debug',
  });
  const service: Service = { dataDir, api, caller: '', trivial: '' };
  try {
    const app = await call(service, '/applications', BOOTSTRAP, {
      name: 'caller',
      type: 'private',
      permissions: ALL,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }],
    });
    service.caller = ((await app.json()) as { key: string }).key;
    service.trivial = await reactorOf(service, 'return { raw: { card: req.args.card.length } };');
    // The first run starts the child process; the timed ones below find it warm.
    expect((await react(service, service.trivial)).status).toBe(200);
    return service;
  } catch (error) {
    // No afterAll gets a service that failed to start: it is stopped here, not left running.
    await stopService(service);
    throw error;
  }
};

describe('reactor runs the sandbox cannot stop, against the built service', () => {
  let service: Service;

  beforeAll(async () => {
    service = await startService(TIMEOUT_MS);
  }, 60_000);
  afterAll(() => stopService(service));

  it.each(STUCK)('%s: 422 at the wall time, and the only slot serves the next invocation', async (_title, body) => {
    const stuck = await reactorOf(service, body);
    const reaction = await react(service, stuck);
    expect(reaction.status).toBe(422);
    expect(reaction.body.errors.reactor).toEqual([`The reactor did not finish within ${TIMEOUT_MS} ms.`]);
    expect(reaction.ms).toBeLessThan(TIMEOUT_MS + 2000);
    const next = await react(service, service.trivial);
    expect(next.status).toBe(200);
    expect(next.body.raw).toEqual({ card: SECRET_ARG.length });
  }, 20_000);

  it('ends on SIGTERM while a run is stuck, within its wall time and grace, and wrote nothing of the runs', async () => {
    const stuck = await reactorOf(service, STUCK[0][1]);
    let started = performance.now();
    const reaction = react(service, stuck).then(
      (answer) => ({ ...answer, after: performance.now() - started }),
      () => null,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    started = performance.now();
    // The HTTP server first lets the request under way finish: the run ends at its wall time and grace, then the
    // service closes (which takes a few seconds of its own, as the client's idle keep-alive connection closes).
    const code = await service.api.stop('SIGTERM');
    expect(code).toBe(0);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 10_000);
    const answered = await reaction;
    // Answered 422 (its wall time) or 503 (shutting down) before the server closed, or the connection was closed.
    if (answered) {
      expect([422, 503]).toContain(answered.status);
      expect(answered.after).toBeLessThan(TIMEOUT_MS + 2000);
    }
    expect(service.api.output()).not.toContain(SECRET_ARG);
    expect(service.api.output()).not.toContain('JSON.parse');
  }, 30_000);
});

describe('reactor runs whose memory the isolate does not count, against the built service', () => {
  let service: Service;

  // A timeout the hog cannot reach before the memory bound even on a busy machine (it takes a second or two on a
  // quiet one), so that the memory bound is what stops it.
  beforeAll(async () => {
    service = await startService(MEMORY_CASE_TIMEOUT_MS);
  }, 60_000);
  afterAll(() => stopService(service));

  it('answers 422 out of memory for ICU objects the isolate does not count, and serves the next invocation', async () => {
    // Each segmenter holds its break iterator and dictionaries in ICU: about 300 MB a second.
    const hog = await reactorOf(service, `const held = [];
      for (let i = 0; ; i++) held.push(new Intl.Segmenter(['en', 'th', 'ja', 'zh', 'de'][i % 5], { granularity: ['word', 'sentence', 'grapheme'][i % 3] }));`);
    const reaction = await react(service, hog);
    expect(reaction.status).toBe(422);
    expect(reaction.body.errors.reactor).toEqual(['The reactor used more than the 32 MB of memory it may use.']);
    expect((await react(service, service.trivial)).status).toBe(200);
  }, MEMORY_CASE_TIMEOUT_MS + 30_000);
});
