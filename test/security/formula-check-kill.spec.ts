// Formula code whose top level V8 cannot stop (isolated-vm's timeout and dispose miss JSON.parse, String#normalize
// and Intl loops), uploaded to the built service: the create answers 422 within the check's limit and the kill grace,
// the API keeps serving other tenants meanwhile, and the CLI's `formulas import` of such code reports it and exits.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiProcess, runCli, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'formula-check-kill-bootstrap-key-0123456789';
/**
 * Time enough for the checker's limit (100 ms), the runtime's kill grace (1 s), a child's exit and start and the HTTP
 * round trip on 2 cores that other work keeps busy, yet far less than the 30 s after which a create is given up: what
 * it tells apart is a check whose child was killed from one nothing stops (the in-process checker never answers such
 * code). The kill's own timing, at the limit and the grace, is child-process-code-checker.spec.ts's to check.
 */
const BOUND_MS = 15_000;

const HOSTILE = [
  "const s = JSON.stringify(Array.from({length:3e4},(_, i)=>({a:i,b:'x'+i}))); for(;;) JSON.parse(s); module.exports = async () => ({});",
  "const s = 'e\\u0301'.repeat(2e6); for (;;) s.normalize('NFC'); module.exports = async () => ({});",
  "const a = 'a'.repeat(3e6), b = 'a'.repeat(3e6 - 1) + 'b'; const c = new Intl.Collator('en'); for (;;) c.compare(a, b); module.exports = async () => ({});",
];
const NORMAL = 'module.exports = async function (req) { return { raw: { n: req.args.n } }; };';

const aFormula = (code: string) => ({ name: `Formula ${randomUUID()}`, type: 'private', code, configuration: [], request_parameters: [] });

describe('formula code checks the sandbox cannot stop, against the built service', () => {
  let dataDir: string;
  let api: ApiProcess;
  let otherKey: string;
  const env = () => ({ VAULT_DATA_DIR: dataDir, VAULT_BOOTSTRAP_KEY: BOOTSTRAP, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  const create = async (key: string, code: string) => {
    const started = performance.now();
    const response = await fetch(api.url + '/reactor-formulas', {
      method: 'POST',
      headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(aFormula(code)),
      signal: AbortSignal.timeout(30_000),
    });
    return { status: response.status, body: (await response.json()) as any, ms: performance.now() - started };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-formula-check-kill-'));
    api = await startApiProcess(env());
    const tenant = await runCli(['tenant', 'create', '--name', 'bystander'], env());
    expect(tenant.code).toBe(0);
    otherKey = JSON.parse(tenant.stdout).management_key;
    // The API reads the key the CLI wrote from the shared event log within a second.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // The first check starts a child process; the timed ones below find the pool warm.
    expect((await create(BOOTSTRAP, NORMAL)).status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await api?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each(HOSTILE.map((code) => [code.slice(0, 40), code]))('%s…: 422 within the limit and the grace', async (_title, code) => {
    const answer = await create(BOOTSTRAP, code);
    expect(answer.status).toBe(422);
    expect(answer.body.errors.code).toEqual(["The code's top level did not finish within 100 ms."]);
    expect(answer.ms).toBeLessThan(BOUND_MS);
  }, 30_000);

  it("three hostile uploads at once: each answers 422, and another tenant's formula create answers 201 meanwhile", async () => {
    const hostile = HOSTILE.map((code) => create(BOOTSTRAP, code));
    // Let the hostile checks reach their children first.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const other = await create(otherKey, NORMAL);
    expect(other.status).toBe(201);
    // Answered, while API threads held by the stuck checks would never answer. Which slots checks may hold, and that a
    // run goes on while they are stuck, is child-process-code-checker.spec.ts's ("holds at most half the slots").
    expect(other.ms).toBeLessThan(BOUND_MS);
    for (const answer of await Promise.all(hostile)) {
      expect(answer.status).toBe(422);
      expect(answer.ms).toBeLessThan(2 * BOUND_MS);
    }
    // Every API thread is free again: a normal create answers at once.
    const after = await create(otherKey, NORMAL);
    expect(after.status).toBe(201);
    expect(after.ms).toBeLessThan(BOUND_MS);
  }, 60_000);

  it('the CLI imports a formula file whose top level never ends: reports it failed and exits promptly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-formula-check-kill-import-'));
    try {
      const official = JSON.parse(readFileSync(join(__dirname, '..', '..', 'formulas', 'official', 'mask-email.json'), 'utf8'));
      writeFileSync(join(dir, 'stuck.json'), JSON.stringify({ ...official, id: randomUUID(), name: 'Stuck import', code: HOSTILE[0] }));
      const started = performance.now();
      const result = await runCli(['formulas', 'import', dir], env());
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/stuck\.json: FAILED/);
      expect(result.stderr).toMatch(/did not finish within 100 ms/);
      expect(performance.now() - started).toBeLessThan(20_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
