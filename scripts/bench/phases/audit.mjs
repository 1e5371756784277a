// Audit: the throughput cost of access records (issue 12: at most 10%). A reveal-heavy load, GET /tokens/{id} by an
// application whose rule reveals, --connections connections for --duration seconds, against the service with access
// records on (the default) and off (VAULT_AUDIT_ACCESS_RECORDS=false), restarted on the same data dir between runs,
// alternating ROUNDS times so that other load on the machine falls on both. Each setting's best run is compared.
// One token is read over and over: the cheapest reveal there is, so the records' share of the cost is at its largest.
// The audit stream is counted in the event log file after each run: on, at least one record per 2xx; off, none.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkStatuses, expectStatus } from '../api.mjs';
import { BenchError } from '../context.mjs';
import { runLoad } from '../processes.mjs';
import { enterPhase, restartService } from '../service.mjs';
import { int, pct, request, table } from '../util.mjs';

const ROUNDS = 3;
const TARGET = 0.1;
const OFF = { VAULT_AUDIT_ACCESS_RECORDS: 'false' };
const ON = {};

export async function audit(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'audit');
  ctx.log(`\n## Audit: access-record overhead (GET /tokens/{id} with reveal, ${opts.connections} connections, ${opts.duration} s a run)\n`);
  const app = await expectStatus(
    'create the reveal application',
    request(ctx.service.port, 'POST', '/applications', {
      body: {
        name: 'bench reveal',
        type: 'private',
        permissions: ['token:create', 'token:read'],
        rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
      },
      headers: { 'svc-api-key': ctx.bootstrapKey },
    }),
    [201],
  );
  const key = app.json.key;
  const token = await expectStatus(
    'create the revealed token',
    request(ctx.service.port, 'POST', '/tokens', { body: { type: 'card_number', data: '4242424242424242' }, headers: { 'svc-api-key': key } }),
    [201],
  );
  const tenantId = token.json.tenant_id;
  const read = await request(ctx.service.port, 'GET', `/tokens/${token.json.id}`, { headers: { 'svc-api-key': key } });
  if (read.status !== 200 || read.json?.data !== '4242424242424242') throw new BenchError(`audit: the reveal read answered ${read.status}, not the data`);

  const runs = [];
  let on = true; // serviceStart started it with the defaults: records on
  for (let i = 0; i < ROUNDS * 2; i++) {
    if (i > 0) {
      on = !on;
      await restartService(ctx, on ? ON : OFF);
    }
    runs.push(await measure(ctx, { key, tenantId, id: token.json.id, on }));
  }
  const best = (setting) => Math.max(...runs.filter((r) => r.on === setting).map((r) => r.rps));
  const rpsOn = best(true);
  const rpsOff = best(false);
  const overhead = (rpsOff - rpsOn) / rpsOff;
  const pass = overhead <= TARGET;
  // Each round's own on/off pair, neighbours in time: how much the machine's other load moved the figures.
  const rounds = Array.from({ length: ROUNDS }, (_, r) => (runs[2 * r + 1].rps - runs[2 * r].rps) / runs[2 * r + 1].rps);
  ctx.results.audit = {
    connections: opts.connections,
    duration_s: opts.duration,
    rounds: ROUNDS,
    runs,
    rps_on: rpsOn,
    rps_off: rpsOff,
    overhead,
    overhead_per_round: rounds,
    target: TARGET,
    pass,
  };
  ctx.log(
    table(
      ['run', 'access records', 'req/s', 'p50', 'p99', 'records written', 'statuses'],
      runs.map((r, i) => [i + 1, r.on ? 'on' : 'off', int(r.rps), `${r.p50} ms`, `${r.p99} ms`, int(r.records), JSON.stringify(r.status)]),
    ),
  );
  ctx.log(
    `\nBest of ${ROUNDS} runs each: ${int(rpsOn)} req/s with access records, ${int(rpsOff)} req/s without: ` +
      `overhead ${pct(overhead)} (target ≤ ${pct(TARGET)}): ${pass ? 'PASS' : 'MISS'}`,
  );
  ctx.log(`Overhead of each round's pair (on, then off): ${rounds.map(pct).join(', ')}; a spread wider than the overhead is other load on the machine.`);
  if (runs.some((r) => r.on && r.records < r.ok)) ctx.failures.push('audit: a run with access records on wrote fewer records than it answered reveals');
  if (runs.some((r) => !r.on && r.records !== 0)) ctx.failures.push('audit: a run with access records off wrote records');
  // Back to the defaults for any phase after this one.
  if (!on) await restartService(ctx, ON);
}

/** One warmed-up timed run on the running service; the records it wrote, counted in the event log file. */
async function measure(ctx, { key, tenantId, id, on }) {
  const { opts } = ctx;
  const config = {
    url: `http://127.0.0.1:${ctx.service.port}`,
    method: 'GET',
    path: `/tokens/${id}`,
    headers: { 'svc-api-key': key },
    bodies: [''],
    connections: opts.connections,
    pipelining: 1,
    latencies: true,
  };
  if (opts.warmup > 0) await runLoad(ctx, 'audit warm-up', { ...config, duration: opts.warmup, latencies: false });
  const before = auditRecords(ctx, tenantId);
  const result = await runLoad(ctx, `audit (records ${on ? 'on' : 'off'})`, { ...config, duration: opts.duration });
  checkStatuses(ctx, `audit (records ${on ? 'on' : 'off'})`, result);
  // autocannon stops with requests in flight: their records may land just after it returns.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const records = auditRecords(ctx, tenantId) - before;
  return { on, rps: result.rps, ok: result.ok, status: result.status, p50: result.latency.p50, p99: result.latency.p99, records };
}

/** The tenant's access records in the embedded event log, read through a read-only connection beside the service's. */
function auditRecords(ctx, tenantId) {
  const db = new Database(join(ctx.dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT COUNT(*) AS n FROM events WHERE stream_id = ?').get(`audit-${tenantId}`).n;
  } finally {
    db.close();
  }
}
