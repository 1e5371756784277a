// Audit: the throughput cost of access records (target: at most 10%). A reveal-heavy load, GET /tokens/{id} by an
// application whose rule reveals, --connections connections for --duration seconds a run, against the service with
// access records on (the default) and off (VAULT_AUDIT_ACCESS_RECORDS=false), on the same data, two ways:
// - sequential: one service restarted on the same data dir before every run, ROUNDS runs each in ABBA order, the
//   medians compared. On a machine shared with other work, runs of one setting differ by more than the overhead.
// - paired (the verdict): a copy of the data dir taken before any run, one service on each, records on in one and off
//   in the other, both loaded at the same time, PAIRED_RUNS times, the median ratio of their throughputs. Whatever
//   else the machine runs falls on both alike; what the records cost (CPU, and any idling while a batch commits)
//   shows as the difference.
// One token is read over and over: the cheapest reveal there is, so the records' share of the cost is at its largest.
// The audit stream is counted in the event log file after each run: on, at least one record per 2xx; off, none.
import { spawn } from 'node:child_process';
import { closeSync, cpSync, openSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { checkStatuses, expectStatus } from '../api.mjs';
import { BenchError, PATHS } from '../context.mjs';
import { runLoad, stopChild, waitForLine } from '../processes.mjs';
import { enterPhase, restartService, serviceEnv, START_FLAGS, stopService, startService } from '../service.mjs';
import { cpuSeconds, int, pct, request, table } from '../util.mjs';

/** Sequential runs per setting. */
const ROUNDS = 4;
/** Paired runs (both settings at once). */
const PAIRED_RUNS = 3;
const TARGET = 0.1;
const OFF = { VAULT_AUDIT_ACCESS_RECORDS: 'false' };
const ON = {};

export async function audit(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'audit');
  ctx.log(`\n## Audit: access-record overhead (GET /tokens/{id} with reveal, ${opts.connections} connections, ${opts.duration} s a run)\n`);
  const target = await revealTarget(ctx);
  // The data every run starts from, for the paired service: the service stopped, so its files are consistent.
  await stopService(ctx);
  const pairedDir = `${ctx.dataDir}-paired`;
  cpSync(ctx.dataDir, pairedDir, { recursive: true });
  await startService(ctx, ON);

  // ABBA order (on off, off on, …), each run on a freshly restarted service: a trend over time (other load on the
  // machine, the log growing) falls on both settings alike.
  const order = Array.from({ length: ROUNDS }, (_, r) => (r % 2 === 0 ? [true, false] : [false, true])).flat();
  const runs = [];
  for (const on of order) {
    await restartService(ctx, on ? ON : OFF);
    runs.push(await measure(ctx, target, on));
  }
  const of = (on, field) => median(runs.filter((r) => r.on === on).map((r) => r[field]));
  const sequential = { rps_on: of(true, 'rps'), rps_off: of(false, 'rps'), cpu_us_on: of(true, 'cpu_us_per_request'), cpu_us_off: of(false, 'cpu_us_per_request') };
  sequential.overhead = (sequential.rps_off - sequential.rps_on) / sequential.rps_off;
  ctx.log('Sequential runs (one service, restarted before each run):\n');
  ctx.log(
    table(
      ['run', 'access records', 'req/s', 'p50', 'p99', 'service CPU per request', 'records written', 'statuses'],
      runs.map((r, i) => [i + 1, r.on ? 'on' : 'off', int(r.rps), `${r.p50} ms`, `${r.p99} ms`, `${r.cpu_us_per_request} µs`, int(r.records), JSON.stringify(r.status)]),
    ),
  );
  ctx.log(
    `\nMedians of ${ROUNDS} runs each: ${int(sequential.rps_on)} req/s with access records, ${int(sequential.rps_off)} without ` +
      `(${pct(sequential.overhead)}); service CPU per request ${int(sequential.cpu_us_on)} µs and ${int(sequential.cpu_us_off)} µs.\n`,
  );

  // Paired: the running service gets records on, a second one on the copy gets them off.
  await restartService(ctx, ON);
  const offService = await startPairedService(ctx, pairedDir, OFF);
  const paired = [];
  try {
    for (let i = 0; i < PAIRED_RUNS; i++) paired.push(await measurePair(ctx, target, offService, pairedDir));
  } finally {
    await stopChild(ctx, offService.child, 30_000);
  }
  const ratio = median(paired.map((p) => p.on.rps / p.off.rps));
  const overhead = 1 - ratio;
  const pass = overhead <= TARGET;
  ctx.log(`Paired runs (records on and off in two services on copies of the same data, loaded at the same time):\n`);
  ctx.log(
    table(
      ['run', 'req/s, records on', 'req/s, records off', 'overhead', 'p50 on / off', 'records written on / off'],
      paired.map((p, i) => [
        i + 1,
        int(p.on.rps),
        int(p.off.rps),
        pct(1 - p.on.rps / p.off.rps),
        `${p.on.p50} / ${p.off.p50} ms`,
        `${int(p.on.records)} / ${int(p.off.records)}`,
      ]),
    ),
  );
  ctx.log(`\nAccess-record overhead, median of ${PAIRED_RUNS} paired runs: ${pct(overhead)} (target ≤ ${pct(TARGET)}): ${pass ? 'PASS' : 'MISS'}`);
  ctx.results.audit = {
    connections: opts.connections,
    duration_s: opts.duration,
    sequential: { rounds: ROUNDS, runs, ...sequential },
    paired: { runs: paired, overhead },
    overhead,
    target: TARGET,
    pass,
  };

  const all = [...runs, ...paired.flatMap((p) => [p.on, p.off])];
  if (all.some((r) => r.on && r.records < r.ok)) ctx.failures.push('audit: a run with access records on wrote fewer records than it answered reveals');
  if (all.some((r) => !r.on && r.records !== 0)) ctx.failures.push('audit: a run with access records off wrote records');
}

/** The reveal application and one card token, read once to check that it reveals. */
async function revealTarget(ctx) {
  const port = ctx.service.port;
  const permissions = ['token:create', 'token:read'];
  const app = await expectStatus(
    'create the reveal application',
    request(port, 'POST', '/applications', {
      body: { name: 'bench reveal', type: 'private', permissions, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions }] },
      headers: { 'svc-api-key': ctx.bootstrapKey },
    }),
    [201],
  );
  const key = app.json.key;
  const token = await expectStatus(
    'create the revealed token',
    request(port, 'POST', '/tokens', { body: { type: 'card_number', data: '4242424242424242' }, headers: { 'svc-api-key': key } }),
    [201],
  );
  const read = await request(port, 'GET', `/tokens/${token.json.id}`, { headers: { 'svc-api-key': key } });
  if (read.status !== 200 || read.json?.data !== '4242424242424242') throw new BenchError(`audit: the reveal read answered ${read.status}, not the data`);
  return { key, id: token.json.id, tenantId: token.json.tenant_id };
}

const loadConfig = (ctx, port, { key, id }) => ({
  url: `http://127.0.0.1:${port}`,
  method: 'GET',
  path: `/tokens/${id}`,
  headers: { 'svc-api-key': key },
  bodies: [''],
  connections: ctx.opts.connections,
  pipelining: 1,
  latencies: true,
});

/** One warmed-up timed run on the running service; the records it wrote, counted in the event log file. */
async function measure(ctx, target, on) {
  const { opts } = ctx;
  const config = loadConfig(ctx, ctx.service.port, target);
  const label = `audit (records ${on ? 'on' : 'off'})`;
  if (opts.warmup > 0) await runLoad(ctx, 'audit warm-up', { ...config, duration: opts.warmup, latencies: false });
  const before = auditRecords(ctx.dataDir, target.tenantId);
  const cpuBefore = cpuSeconds(ctx.service.pid);
  const result = await runLoad(ctx, label, { ...config, duration: opts.duration });
  const cpu = cpuSeconds(ctx.service.pid) - cpuBefore;
  checkStatuses(ctx, label, result);
  // autocannon stops with requests in flight: their records may land just after it returns.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const cpu_us_per_request = result.responses > 0 ? Math.round((cpu * 1e6) / result.responses) : null;
  return { on, ...figures(result), records: auditRecords(ctx.dataDir, target.tenantId) - before, cpu_us_per_request };
}

/** Both services loaded at once, warmed up at once; records on in ctx.service, off in `offService`. */
async function measurePair(ctx, target, offService, pairedDir) {
  const { opts } = ctx;
  const onConfig = loadConfig(ctx, ctx.service.port, target);
  const offConfig = loadConfig(ctx, offService.port, target);
  if (opts.warmup > 0) {
    await Promise.all([
      runLoad(ctx, 'audit warm-up (on)', { ...onConfig, duration: opts.warmup, latencies: false }),
      runLoad(ctx, 'audit warm-up (off)', { ...offConfig, duration: opts.warmup, latencies: false }),
    ]);
  }
  const before = [auditRecords(ctx.dataDir, target.tenantId), auditRecords(pairedDir, target.tenantId)];
  const [on, off] = await Promise.all([
    runLoad(ctx, 'audit paired (records on)', { ...onConfig, duration: opts.duration }),
    runLoad(ctx, 'audit paired (records off)', { ...offConfig, duration: opts.duration }),
  ]);
  checkStatuses(ctx, 'audit paired (records on)', on);
  checkStatuses(ctx, 'audit paired (records off)', off);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    on: { on: true, ...figures(on), records: auditRecords(ctx.dataDir, target.tenantId) - before[0] },
    off: { on: false, ...figures(off), records: auditRecords(pairedDir, target.tenantId) - before[1] },
  };
}

const figures = (result) => ({ rps: result.rps, ok: result.ok, status: result.status, p50: result.latency.p50, p99: result.latency.p99 });

/** A second service as startService starts the first, on `dataDir`, logging to its own file; killed on failure. */
async function startPairedService(ctx, dataDir, overrides) {
  const log = `${dataDir}.log`;
  const fd = openSync(log, 'a');
  const env = serviceEnv(ctx, ctx.bootstrapKey, { ...overrides, VAULT_DATA_DIR: dataDir });
  const child = spawn(process.execPath, [...START_FLAGS, ...ctx.opts.serviceArgs, PATHS.API_MAIN], { cwd: PATHS.ROOT, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  ctx.children.add(child);
  const line = await waitForLine(log, 'vault API listening', child, 'the paired service', 120_000);
  return { child, port: line.port };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The tenant's access records in a data dir's event log, read through a read-only connection beside the service's. */
function auditRecords(dataDir, tenantId) {
  const db = new Database(join(dataDir, 'events.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT COUNT(*) AS n FROM events WHERE stream_id = ?').get(`audit-${tenantId}`).n;
  } finally {
    db.close();
  }
}
