// Proxy: what POST /proxy adds to a request on its way to a destination. A local destination (../proxy-destination-
// server.mjs, node:http in a process of its own, answering the raw baseline's small JSON body) is loaded three ways in
// the same run, with the bench's load generator: (a) directly, (b) through POST /proxy with a small JSON body and no
// detokenization, (c) through POST /proxy with one `{{ <token id> }}` in that body, detokenized (the caller holds only
// token:use, so what comes back also passes the flow-back guard). Each at 1 connection (latency) and at --connections
// (throughput), in ROUNDS rounds of alternating order, each figure the median of its rounds. Targets: the pass-through
// overhead (b − a) at 1 connection p50 ≤ 2 ms; (b)'s throughput at --connections ≥ 50% of the framework floor measured
// earlier in the same run (the framework-floor phase, at the same connections).
import { checkStatuses, expectStatus } from '../api.mjs';
import { BenchError, loadAverage, PATHS } from '../context.mjs';
import { runLoad, stopChild } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase, restartService } from '../service.mjs';
import { cpuSeconds, request } from '../util.mjs';
import { BASELINE_BODY, startServerChild } from './baseline.mjs';
import { serviceStart } from './service-start.mjs';

/** What the destination answers on its default route (the raw baseline's answer). */
const ACK = JSON.stringify({ pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 }, data: [] });

export const PROXY_TARGETS = { overheadP50Ms: 2, floorShare: 0.5 };

/** Rounds of the three paths at each connection count. */
const ROUNDS = 3;
/** The three ways a request reaches the destination, in the order of the first round. */
const PATHS_MEASURED = ['direct', 'pass_through', 'detokenized'];

export async function proxy(ctx) {
  const { opts } = ctx;
  const destination = await startServerChild(ctx, PATHS.PROXY_DESTINATION, 'proxy destination listening', 'the proxy destination', 'proxy-destination.log');
  const env = { VAULT_PROXY_ALLOWED_HOSTS: `127.0.0.1:${destination.port}` };
  if (ctx.service) ctx.log(report.serviceRestarted(await restartService(ctx, env), env));
  else await serviceStart(ctx, env);
  enterPhase(ctx, 'proxy');
  ctx.log(report.proxyIntro(opts, destination.port, ROUNDS));
  const loadBefore = loadAverage();

  const setup = await proxySetup(ctx, destination.port);
  const configs = loadConfigs(ctx, destination.port, setup);
  // Warm every path at full concurrency first: the service's code, its egress connections and the destination.
  if (opts.warmup > 0) {
    for (const name of PATHS_MEASURED) {
      checkStatuses(ctx, `proxy warm-up (${name})`, await runLoad(ctx, `proxy warm-up (${name})`, { ...configs[name], connections: opts.connections, duration: opts.warmup, latencies: false }));
    }
  }
  // ROUNDS rounds at each connection count, the paths in alternating order (a b c, c b a, …): load that other work
  // puts on the machine during the phase falls on the three paths alike, and each figure is the median of its rounds.
  // Full concurrency first, so that its runs follow the framework floor's as closely as the service's start allows.
  const runs = {};
  for (const connections of [...new Set([opts.connections, 1])]) {
    runs[connections] = Object.fromEntries(PATHS_MEASURED.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 === 0 ? PATHS_MEASURED : [...PATHS_MEASURED].reverse()) {
        const label = `proxy ${name}, ${connections} connection${connections === 1 ? '' : 's'}, round ${round + 1}`;
        const config = { ...configs[name], connections };
        if (opts.warmup > 0) await runLoad(ctx, `${label} warm-up`, { ...config, duration: opts.warmup, latencies: false });
        const cpuBefore = cpuSeconds(ctx.service.pid);
        const r = await runLoad(ctx, label, { ...config, duration: opts.duration });
        const cpu = cpuSeconds(ctx.service.pid) - cpuBefore;
        checkStatuses(ctx, label, r);
        runs[connections][name].push({
          round: round + 1,
          rps: r.rps,
          latency: r.latency,
          responses: r.responses,
          non2xx: r.non2xx,
          status: r.status,
          errors: r.errors,
          timeouts: r.timeouts,
          seconds: r.elapsed_s,
          service_cpu_us_per_request: name === 'direct' || r.responses === 0 ? null : Math.round((cpu * 1e6) / r.responses),
          // The direct path never reaches the service: what it spends meanwhile is its idle work (timers, polls).
          service_idle_cpu_ms_per_s: name === 'direct' ? Math.round((cpu * 1000) / r.elapsed_s) : null,
        });
      }
    }
  }
  await stopChild(ctx, destination.child);

  const floor = ctx.results.framework_floor?.rps ?? null;
  const byRound = (connections, f) => median(runs[connections].direct.map((a, i) => f(a, runs[connections].pass_through[i], runs[connections].detokenized[i])));
  const summary = (list) => ({
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.latency.p50)),
    p99: median(list.map((r) => r.latency.p99)),
    p50_per_round: list.map((r) => r.latency.p50),
    rps_per_round: list.map((r) => r.rps),
    service_cpu_us_per_request: list[0].service_cpu_us_per_request === null ? null : median(list.map((r) => r.service_cpu_us_per_request)),
    service_idle_cpu_ms_per_s: list[0].service_idle_cpu_ms_per_s === null ? null : median(list.map((r) => r.service_idle_cpu_ms_per_s)),
    failed: list.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
  });
  const n = opts.connections;
  const out = {
    destination: "node:http in its own process (scripts/bench/proxy-destination-server.mjs), answering the raw baseline's JSON body",
    request: {
      direct: `POST / with a ${BASELINE_BODY.length}-byte JSON body`,
      pass_through: 'POST /proxy (SVC-API-KEY, SVC-PROXY-KEY) with the same body',
      detokenized: `POST /proxy with a ${setup.detokenizedBody.length}-byte JSON body holding one {{ <token id> }}`,
    },
    caller: 'private application with token:use only (its implicit rule masks, so the guard checks every answer)',
    connections: { latency: 1, throughput: n },
    rounds: ROUNDS,
    duration_s: opts.duration,
    load_average: { before: loadBefore, after: loadAverage() },
    summary: Object.fromEntries([n, 1].map((c) => [c, Object.fromEntries(PATHS_MEASURED.map((name) => [name, summary(runs[c][name])]))])),
    // Each round's difference to the direct path of the same round, then the median of the rounds.
    overhead_1conn_ms: {
      pass_through: { p50: round3(byRound(1, (a, b) => b.latency.p50 - a.latency.p50)), p99: round3(byRound(1, (a, b) => b.latency.p99 - a.latency.p99)) },
      detokenized: { p50: round3(byRound(1, (a, _b, c) => c.latency.p50 - a.latency.p50)), p99: round3(byRound(1, (a, _b, c) => c.latency.p99 - a.latency.p99)) },
    },
    framework_floor_rps: floor,
    share_of_floor: Object.fromEntries(PATHS_MEASURED.map((name) => [name, floor ? median(runs[n][name].map((r) => r.rps)) / floor : null])),
    targets: PROXY_TARGETS,
    runs,
  };
  out.verdicts = {
    overhead_p50: out.overhead_1conn_ms.pass_through.p50 <= PROXY_TARGETS.overheadP50Ms ? 'PASS' : 'MISS',
    throughput: floor === null ? 'n/a' : out.share_of_floor.pass_through >= PROXY_TARGETS.floorShare ? 'PASS' : 'MISS',
  };
  ctx.results.proxy = out;
  ctx.log(report.proxy(out, opts));
}

/** A caller (token:use), a proxy to the destination (require_auth true), a token to detokenize; each path checked once. */
async function proxySetup(ctx, destinationPort) {
  const port = ctx.service.port;
  const admin = { 'svc-api-key': ctx.bootstrapKey };
  const caller = await expectStatus(
    'create the proxy caller',
    request(port, 'POST', '/applications', { body: { name: 'bench proxy caller', type: 'private', permissions: ['token:use'] }, headers: admin }),
    [201],
  );
  const created = await expectStatus(
    'create the proxy',
    request(port, 'POST', '/proxies', { body: { name: 'bench destination', destination_url: `http://127.0.0.1:${destinationPort}`, require_auth: true }, headers: admin }),
    [201],
  );
  const proxyKey = created.json?.key;
  if (!proxyKey) throw new BenchError('POST /proxies answered without the proxy key');
  const token = await expectStatus(
    'create the token to detokenize',
    request(port, 'POST', '/tokens', { body: { type: 'card_number', data: '4242424242424242' }, headers: { 'svc-api-key': ctx.apiKey } }),
    [201],
  );
  const detokenizedBody = JSON.stringify({ card_number: `{{ ${token.json.id} }}`, amount: 1999, currency: 'EUR' });
  const headers = { 'content-type': 'application/json', 'svc-api-key': caller.json.key, 'svc-proxy-key': proxyKey };

  // Each path answers the destination's acknowledgement.
  const direct = await request(destinationPort, 'POST', '/', { body: BASELINE_BODY });
  const passed = await request(port, 'POST', '/proxy', { body: BASELINE_BODY, headers });
  const detokenized = await request(port, 'POST', '/proxy', { body: detokenizedBody, headers });
  for (const [what, res] of [['the destination directly', direct], ['POST /proxy', passed], ['POST /proxy with a token to detokenize', detokenized]]) {
    if (res.status !== 200 || res.text !== ACK) {
      throw new BenchError(`proxy: ${what} answered ${res.status}, not the destination's acknowledgement: ${res.text.slice(0, 300)}`);
    }
  }
  // Through the echo route: the destination received the data (not the expression), and the guard kept it from the caller.
  const echoed = await request(port, 'POST', '/proxy/echo', { body: detokenizedBody, headers });
  const card = echoed.json?.card_number;
  if (echoed.status !== 200 || typeof card !== 'string' || card.includes('{{') || card.includes('4242424242424242')) {
    throw new BenchError(`proxy: the echoed detokenization answered ${echoed.status} with ${JSON.stringify(card)}: expected the data replaced by the caller's view`);
  }
  return { headers, detokenizedBody };
}

function loadConfigs(ctx, destinationPort, { headers, detokenizedBody }) {
  const common = { method: 'POST', pipelining: 1, timeout: 30 };
  return {
    direct: { ...common, url: `http://127.0.0.1:${destinationPort}`, path: '/', headers: { 'content-type': 'application/json' }, bodies: [BASELINE_BODY] },
    pass_through: { ...common, url: `http://127.0.0.1:${ctx.service.port}`, path: '/proxy', headers, bodies: [BASELINE_BODY] },
    detokenized: { ...common, url: `http://127.0.0.1:${ctx.service.port}`, path: '/proxy', headers, bodies: [detokenizedBody] },
  };
}

const round3 = (n) => Math.round(n * 1000) / 1000;

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
