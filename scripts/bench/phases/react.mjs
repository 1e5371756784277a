// React: the per-invocation overhead of POST /reactors/{id}/react (a trivial reactor, one request at a time: the
// fresh isolate, the stream reads, args detokenization and the configuration's decryption), then GET /permissions
// idle and while VAULT_REACTOR_CONCURRENCY (default 4) reactors spin until their wall-time limit.
import { expectStatus } from '../api.mjs';
import { enterPhase } from '../service.mjs';
import { ms, request, sleep, summarize, table } from '../util.mjs';

const INVOCATIONS = 500;
const WARM_UP = 30;
const PERMISSION_SAMPLES = 200;
const SPINNERS = 4;

export async function react(ctx) {
  enterPhase(ctx, 'react');
  const port = ctx.service.port;
  const admin = { 'svc-api-key': ctx.bootstrapKey };
  ctx.log('\n## React: per-invocation overhead, and GET /permissions while reactors spin\n');

  const app = await expectStatus(
    'create the react application',
    request(port, 'POST', '/applications', {
      body: { name: 'bench react', type: 'private', permissions: ['token:create', 'token:read', 'token:use'] },
      headers: admin,
    }),
    [201],
  );
  const caller = { 'svc-api-key': app.json.key };
  const reactor = async (name, code) => {
    const formula = await expectStatus(
      `create the ${name} formula`,
      request(port, 'POST', '/reactor-formulas', {
        body: { name: `bench ${name}`, type: 'private', code, configuration: [{ name: 'api_key', type: 'string' }], request_parameters: [] },
        headers: admin,
      }),
      [201],
    );
    const created = await expectStatus(
      `create the ${name} reactor`,
      request(port, 'POST', '/reactors', { body: { name: `bench ${name}`, formula: { id: formula.json.id }, configuration: { api_key: 'sk_bench' } }, headers: admin }),
      [201],
    );
    return created.json.id;
  };
  const trivial = await reactor('trivial', 'module.exports = async function (req) { return { raw: { ok: true } }; };');
  const spinner = await reactor('spinner', 'module.exports = async function () { for (;;) {} };');

  const invoke = (id, args = {}) => request(port, 'POST', `/reactors/${id}/react`, { body: { args }, headers: caller, timeoutMs: 120_000 });
  const times = async (label, n, call) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const r = await call();
      if (r.status !== 200) throw new Error(`${label}: status ${r.status}: ${r.text.slice(0, 200)}`);
      out.push(r.ms);
    }
    return out;
  };

  for (let i = 0; i < WARM_UP; i++) await invoke(trivial);
  const reactMs = summarize(await times('react (trivial)', INVOCATIONS, () => invoke(trivial)));
  const permissions = () => request(port, 'GET', '/permissions', { headers: caller });
  await times('GET /permissions warm-up', 20, permissions);
  const idle = summarize(await times('GET /permissions idle', PERMISSION_SAMPLES, async () => {
    const r = await permissions();
    await sleep(5);
    return r;
  }));

  // The spinners take every slot until VAULT_REACTOR_TIMEOUT_MS (default 10 s) ends them with a 422.
  const spinning = Array.from({ length: SPINNERS }, () => invoke(spinner));
  await sleep(300);
  const started = performance.now();
  const busyTimes = [];
  let stillSpinning = true;
  void Promise.all(spinning).then(() => (stillSpinning = false));
  while (stillSpinning && busyTimes.length < PERMISSION_SAMPLES) {
    const r = await permissions();
    if (r.status !== 200) throw new Error(`GET /permissions while reactors spin: status ${r.status}`);
    if (stillSpinning) busyTimes.push(r.ms);
    await sleep(20);
  }
  const spinResults = await Promise.all(spinning);
  const busy = summarize(busyTimes);

  ctx.results.react = {
    invocations: INVOCATIONS,
    react_ms: reactMs,
    permissions_idle_ms: idle,
    permissions_while_spinning_ms: busy,
    spinners: SPINNERS,
    spinner_statuses: spinResults.map((r) => r.status),
    spin_window_s: Math.round((performance.now() - started) / 100) / 10,
  };
  ctx.log(
    table(
      ['measure', 'samples', 'p50', 'p95', 'p99', 'max'],
      [
        ['POST /reactors/{id}/react, trivial reactor, one at a time', reactMs.count, ms(reactMs.p50), ms(reactMs.p95), ms(reactMs.p99), ms(reactMs.max)],
        ['GET /permissions, idle', idle.count, ms(idle.p50), ms(idle.p95), ms(idle.p99), ms(idle.max)],
        [`GET /permissions, while ${SPINNERS} reactors spin`, busy.count, ms(busy.p50), ms(busy.p95), ms(busy.p99), ms(busy.max)],
      ],
    ),
  );
  ctx.log(`\nThe spinning invocations answered ${[...new Set(spinResults.map((r) => r.status))].join(', ')} (wall-time limit).`);
}
