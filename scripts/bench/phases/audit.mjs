// Audit: the throughput cost of access records (issue 12: at most 10%). A reveal-heavy load, GET /tokens/{id} by an
// application whose rule reveals, --connections connections for --duration seconds, against the service with access
// records on (the default) and off (VAULT_AUDIT_ACCESS_RECORDS=false), restarted on the same data dir before every
// run, ROUNDS runs each in ABBA order; the settings' median runs are compared, and so is the service's CPU time per
// request, which other load on the machine moves much less than throughput.
// One token is read over and over: the cheapest reveal there is, so the records' share of the cost is at its largest.
// The audit stream is counted in the event log file after each run: on, at least one record per 2xx; off, none.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkStatuses, expectStatus } from '../api.mjs';
import { BenchError } from '../context.mjs';
import { runLoad } from '../processes.mjs';
import { enterPhase, restartService } from '../service.mjs';
import { int, pct, request, table } from '../util.mjs';

/** Runs per setting. */
const ROUNDS = 4;
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

  // ABBA order (on off, off on, …), each run on a freshly restarted service: a trend over time (other load on the
  // machine, the log growing) falls on both settings alike.
  const order = Array.from({ length: ROUNDS }, (_, r) => (r % 2 === 0 ? [true, false] : [false, true])).flat();
  const runs = [];
  for (const on of order) {
    await restartService(ctx, on ? ON : OFF);
    runs.push(await measure(ctx, { key, tenantId, id: token.json.id, on }));
  }
  const of = (on, field) => median(runs.filter((r) => r.on === on).map((r) => r[field]));
  const rpsOn = of(true, 'rps');
  const rpsOff = of(false, 'rps');
  const overhead = (rpsOff - rpsOn) / rpsOff;
  const pass = overhead <= TARGET;
  const cpuOn = of(true, 'cpu_us_per_request');
  const cpuOff = of(false, 'cpu_us_per_request');
  const cpuOverhead = (cpuOn - cpuOff) / cpuOn;
  ctx.results.audit = {
    connections: opts.connections,
    duration_s: opts.duration,
    rounds: ROUNDS,
    runs,
    rps_on: rpsOn,
    rps_off: rpsOff,
    overhead,
    cpu_us_per_request_on: cpuOn,
    cpu_us_per_request_off: cpuOff,
    cpu_overhead: cpuOverhead,
    target: TARGET,
    pass,
  };
  ctx.log(
    table(
      ['run', 'access records', 'req/s', 'p50', 'p99', 'service CPU per request', 'records written', 'statuses'],
      runs.map((r, i) => [i + 1, r.on ? 'on' : 'off', int(r.rps), `${r.p50} ms`, `${r.p99} ms`, `${r.cpu_us_per_request} µs`, int(r.records), JSON.stringify(r.status)]),
    ),
  );
  ctx.log(
    `\nMedian of ${ROUNDS} runs each: ${int(rpsOn)} req/s with access records, ${int(rpsOff)} req/s without: ` +
      `overhead ${pct(overhead)} (target ≤ ${pct(TARGET)}): ${pass ? 'PASS' : 'MISS'}`,
  );
  ctx.log(
    `Service CPU per request, median of ${ROUNDS} runs each: ${cpuOn} µs with access records, ${cpuOff} µs without: ` +
      `${pct(cpuOverhead)} of a request's CPU goes to its records (the throughput a CPU-bound service loses on a quiet machine).`,
  );
  if (runs.some((r) => r.on && r.records < r.ok)) ctx.failures.push('audit: a run with access records on wrote fewer records than it answered reveals');
  if (runs.some((r) => !r.on && r.records !== 0)) ctx.failures.push('audit: a run with access records off wrote records');
  // Back to the defaults for any phase after this one.
  if (!runs[runs.length - 1].on) await restartService(ctx, ON);
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

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
  const cpuBefore = cpuSeconds(ctx.service.pid);
  const result = await runLoad(ctx, `audit (records ${on ? 'on' : 'off'})`, { ...config, duration: opts.duration });
  const cpu = cpuSeconds(ctx.service.pid) - cpuBefore;
  checkStatuses(ctx, `audit (records ${on ? 'on' : 'off'})`, result);
  // autocannon stops with requests in flight: their records may land just after it returns.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const records = auditRecords(ctx, tenantId) - before;
  // CPU time of the service per answer: what other load on the machine moves least (it takes time slices, not work).
  const cpu_us_per_request = result.responses > 0 ? Math.round((cpu * 1e6) / result.responses) : null;
  return { on, rps: result.rps, ok: result.ok, status: result.status, p50: result.latency.p50, p99: result.latency.p99, records, cpu_us_per_request };
}

/** User plus system CPU seconds the process has used (/proc/<pid>/stat, in clock ticks of 1/100 s). */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
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
