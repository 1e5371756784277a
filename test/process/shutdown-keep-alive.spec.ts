// SIGTERM against the built service while keep-alive clients chain slow reactor calls and stuck runs wait in the queue:
// it exits 0 within the reactor timeout and a few seconds, no answer after the signal comes from a run started after
// it, and every answer after the signal closes its connection.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiProcess, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'shutdown-keep-alive-bootstrap-key-0123456789';
const ALL = ['token:create', 'token:read', 'token:use'];
const TIMEOUT_MS = 3000;

interface Answer {
  status: number;
  connection: string | undefined;
  /** When the run that answered started (Date.now() inside the reactor), for 200s. */
  runStartedAt?: number;
  answeredAt: number;
}

describe('SIGTERM with busy keep-alive clients and queued reactor runs', () => {
  let dataDir: string;
  let api: ApiProcess;

  /** One POST over `agent`; rejects when the connection is refused or reset. */
  const post = (agent: Agent | undefined, path: string, key: string, body: unknown) =>
    new Promise<Answer & { body: any }>((resolve, reject) => {
      const url = new URL(api.url + path);
      const text = JSON.stringify(body);
      const sent = request(
        { host: url.hostname, port: url.port, path, method: 'POST', agent, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) } },
        (response) => {
          let data = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (data += chunk));
          response.on('end', () => {
            const parsed = data ? JSON.parse(data) : null;
            resolve({ status: response.statusCode!, connection: response.headers.connection, body: parsed, runStartedAt: parsed?.raw?.startedAt, answeredAt: Date.now() });
          });
          response.on('error', reject);
        },
      );
      sent.on('error', reject);
      sent.end(text);
    });

  const reactorOf = async (body: string): Promise<string> => {
    const formula = await post(undefined, '/reactor-formulas', BOOTSTRAP, {
      name: `Slow ${randomUUID()}`,
      type: 'private',
      code: `module.exports = async function (req) { ${body} };`,
      configuration: [],
      request_parameters: [],
    });
    if (formula.status !== 201) throw new Error(`create formula: ${formula.status}`);
    const reactor = await post(undefined, '/reactors', BOOTSTRAP, { name: 'Slow', formula: { id: formula.body.id }, configuration: {} });
    if (reactor.status !== 201) throw new Error(`create reactor: ${reactor.status}`);
    return reactor.body.id;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-shutdown-keep-alive-'));
    api = await startApiProcess({
      VAULT_DATA_DIR: dataDir,
      VAULT_BOOTSTRAP_KEY: BOOTSTRAP,
      VAULT_RATE_LIMIT_PER_SECOND: '100000',
      VAULT_REACTOR_TIMEOUT_MS: String(TIMEOUT_MS),
      VAULT_REACTOR_CONCURRENCY: '4',
      VAULT_REACTOR_MEMORY_MB: '32',
    });
  }, 60_000);
  afterAll(async () => {
    await api?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 0 within the timeout and a few seconds, starting no run after the signal', async () => {
    const app = await post(undefined, '/applications', BOOTSTRAP, {
      name: 'caller',
      type: 'private',
      permissions: ALL,
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }],
    });
    const caller: string = app.body.key;
    // About a second of work each, reporting when it started.
    const slow = await reactorOf('const startedAt = Date.now(); while (Date.now() < startedAt + 1000) {} return { raw: { startedAt } };');
    const stuck = await reactorOf('for (;;) {}');
    expect((await post(undefined, `/reactors/${slow}/react`, caller, { args: {} })).status).toBe(200);

    let signalledAt = Number.POSITIVE_INFINITY;
    const answers: Answer[] = [];
    const chain = async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        // Each client sends its next call as soon as the previous one is answered, as the review's clients did.
        for (let n = 0; n < 200; n++) answers.push(await post(agent, `/reactors/${slow}/react`, caller, { args: {} }));
      } catch {
        // The service closed the connection or stopped listening: this client is done.
      } finally {
        agent.destroy();
      }
    };
    const clients = Array.from({ length: 4 }, chain);
    const stuckRuns = Array.from({ length: 6 }, () => post(undefined, `/reactors/${stuck}/react`, caller, { args: {} }).catch(() => null));
    await new Promise((resolve) => setTimeout(resolve, 2500));

    signalledAt = Date.now();
    api.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([
      new Promise<number | null>((resolve) => api.child.once('exit', (code) => resolve(code))),
      new Promise<'alive'>((resolve) => (timer = setTimeout(() => resolve('alive'), TIMEOUT_MS + 8000))),
    ]);
    clearTimeout(timer);
    const tookMs = Date.now() - signalledAt;
    if (exited === 'alive') api.child.kill('SIGKILL');
    await Promise.all([...clients, ...stuckRuns]);

    expect(exited).toBe(0);
    expect(tookMs).toBeLessThan(TIMEOUT_MS + 4000);
    const before = answers.filter((answer) => answer.answeredAt < signalledAt);
    const after = answers.filter((answer) => answer.answeredAt >= signalledAt);
    expect(before.filter((answer) => answer.status === 200).length).toBeGreaterThan(0);
    // Runs under way at the signal may finish (200); every other answer is busy, and closes its connection. "Under
    // way" is as the service saw it: when it handled the signal (its log line), a run it had handed to a child may still
    // be starting (IPC and a fresh isolate, tens of milliseconds on a loaded machine) before the code reads the clock.
    const handledAt = Date.parse(
      JSON.parse(api.output().split('\n').find((line) => line.includes('"shutting down"')) ?? '{"time":"invalid"}').time,
    );
    expect(handledAt).toBeGreaterThanOrEqual(signalledAt - 5);
    const STARTING_MS = 250;
    for (const answer of after) {
      if (answer.status === 200) expect(answer.runStartedAt).toBeLessThan(handledAt + STARTING_MS);
      else expect(answer.status).toBe(503);
      expect(answer.connection).toBe('close');
    }
    // No client was served call after call: at most the answer under way and one refusal each.
    expect(after.length).toBeLessThanOrEqual(8);
  }, 60_000);
});
