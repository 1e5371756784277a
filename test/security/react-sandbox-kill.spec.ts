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
const SECRET_ARG = 'Zq9-arg-4242-secret';

const STUCK: [string, string][] = [
  ['JSON.parse in a loop', "const s = JSON.stringify(Array.from({ length: 3e4 }, (_, i) => ({ a: i, b: 'x' + i }))); for (;;) JSON.parse(s);"],
  ["String#normalize('NFC') in a loop", "const s = 'e\\u0301'.repeat(2e6); for (;;) s.normalize('NFC');"],
  ['Intl.Collator#compare in a loop', "const a = 'a'.repeat(3e6), b = 'a'.repeat(3e6 - 1) + 'b'; const c = new Intl.Collator('en'); for (;;) c.compare(a, b);"],
];

describe('reactor runs the sandbox cannot stop, against the built service', () => {
  let dataDir: string;
  let api: ApiProcess;
  let caller: string;
  const call = (path: string, key: string, body?: unknown) =>
    fetch(api.url + path, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const reactorOf = async (body: string): Promise<string> => {
    const formula = await call('/reactor-formulas', BOOTSTRAP, {
      name: `Stuck ${randomUUID()}`,
      type: 'private',
      code: `module.exports = async function (req) { ${body} };`,
      configuration: [],
      request_parameters: [],
    });
    if (formula.status !== 201) throw new Error(`create formula: ${formula.status} ${await formula.text()}`);
    const reactor = await call('/reactors', BOOTSTRAP, { name: 'Stuck', formula: { id: ((await formula.json()) as { id: string }).id }, configuration: {} });
    if (reactor.status !== 201) throw new Error(`create reactor: ${reactor.status} ${await reactor.text()}`);
    return ((await reactor.json()) as { id: string }).id;
  };
  const react = async (id: string) => {
    const started = performance.now();
    const response = await call(`/reactors/${id}/react`, caller, { args: { card: SECRET_ARG } });
    return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started, retryAfter: response.headers.get('retry-after') };
  };
  let trivial: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-react-kill-'));
    api = await startApiProcess({
      VAULT_DATA_DIR: dataDir,
      VAULT_BOOTSTRAP_KEY: BOOTSTRAP,
      VAULT_RATE_LIMIT_PER_SECOND: '100000',
      VAULT_REACTOR_TIMEOUT_MS: String(TIMEOUT_MS),
      VAULT_REACTOR_CONCURRENCY: '1',
      VAULT_REACTOR_MEMORY_MB: '32',
      VAULT_LOG_LEVEL: 'debug',
    });
    const app = await call('/applications', BOOTSTRAP, {
      name: 'caller',
      type: 'private',
      permissions: ALL,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }],
    });
    caller = ((await app.json()) as { key: string }).key;
    trivial = await reactorOf('return { raw: { card: req.args.card.length } };');
    // The first run starts the child process; the timed ones below find it warm.
    expect((await react(trivial)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await api?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(STUCK)('%s: 422 at the wall time, and the only slot serves the next invocation', async (_title, body) => {
    const stuck = await reactorOf(body);
    const reaction = await react(stuck);
    expect(reaction.status).toBe(422);
    expect(reaction.body.errors.reactor).toEqual([`The reactor did not finish within ${TIMEOUT_MS} ms.`]);
    expect(reaction.ms).toBeLessThan(TIMEOUT_MS + 2000);
    const next = await react(trivial);
    expect(next.status).toBe(200);
    expect(next.body.raw).toEqual({ card: SECRET_ARG.length });
  }, 20_000);

  it('answers 422 out of memory for ICU objects the isolate does not count, and serves the next invocation', async () => {
    // Each segmenter holds its break iterator and dictionaries in ICU: about 300 MB a second.
    const hog = await reactorOf(`const held = [];
      for (let i = 0; ; i++) held.push(new Intl.Segmenter(['en', 'th', 'ja', 'zh', 'de'][i % 5], { granularity: ['word', 'sentence', 'grapheme'][i % 3] }));`);
    const reaction = await react(hog);
    expect(reaction.status).toBe(422);
    expect(reaction.body.errors.reactor).toEqual(['The reactor used more than the 32 MB of memory it may use.']);
    expect((await react(trivial)).status).toBe(200);
  }, 20_000);

  it('ends on SIGTERM while a run is stuck, within its wall time and grace, and wrote nothing of the runs', async () => {
    const stuck = await reactorOf(STUCK[0][1]);
    let started = performance.now();
    const reaction = react(stuck).then(
      (answer) => ({ ...answer, after: performance.now() - started }),
      () => null,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    started = performance.now();
    // The HTTP server first lets the request under way finish: the run ends at its wall time and grace, then the
    // service closes (which takes a few seconds of its own, as the client's idle keep-alive connection closes).
    const code = await api.stop('SIGTERM');
    expect(code).toBe(0);
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 10_000);
    const answered = await reaction;
    // Answered 422 (its wall time) or 503 (shutting down) before the server closed, or the connection was closed.
    if (answered) {
      expect([422, 503]).toContain(answered.status);
      expect(answered.after).toBeLessThan(TIMEOUT_MS + 2000);
    }
    expect(api.output()).not.toContain(SECRET_ARG);
    expect(api.output()).not.toContain('JSON.parse');
  }, 30_000);
});
