// The load generator: runs autocannon in its own process (so it never shares a CPU time slice with the service or
// the harness) and prints one JSON result on stdout.
//
//   node scripts/bench/load.mjs <config.json>
//
// config: { url, method, path, headers, bodies: [string], kinds?: [string], connections, pipelining?, duration?,
//           amount?, overallRate?, timeout?, latencies?: boolean, capture?: { every, max }, progressMs? }
// Requests rotate through `bodies` (body i of the run is bodies[i % bodies.length]); `kinds[i]` labels body i so
// latencies and rates are also reported per kind. With `capture`, every `every`-th 2xx response is parsed and its
// id, fingerprint and created_at are returned with the index of the body that produced it.
// With progressMs, a line {"progress":{"responses":n,"ok":n,"elapsed_s":s}} is written to stderr that often.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write('usage: node scripts/bench/load.mjs <config.json>\n');
  process.exit(2);
}
const config = JSON.parse(readFileSync(configPath, 'utf8'));
const bodies = config.bodies.map((b) => Buffer.from(b));
const kinds = config.kinds ?? null;
const kindNames = kinds ? [...new Set(kinds)] : [];
const kindIndex = kinds ? kinds.map((k) => kindNames.indexOf(k)) : null;

/** A growable array of latencies in ms. */
class Samples {
  constructor() {
    this.values = new Float64Array(1 << 14);
    this.length = 0;
  }
  push(v) {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = v;
  }
  summary() {
    if (this.length === 0) return { count: 0, mean: null, p50: null, p95: null, p99: null, max: null };
    const sorted = this.values.slice(0, this.length).sort();
    const at = (q) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
    let sum = 0;
    for (const v of sorted) sum += v;
    const r = (v) => Math.round(v * 1000) / 1000;
    return { count: sorted.length, mean: r(sum / sorted.length), p50: r(at(0.5)), p95: r(at(0.95)), p99: r(at(0.99)), max: r(sorted[sorted.length - 1]) };
  }
}

const collect = config.latencies !== false;
const all = new Samples();
const perKind = kindNames.map(() => ({ samples: new Samples(), responses: 0, ok: 0 }));
const status = {};
let responses = 0;
let ok = 0;
let sent = 0;
let last = { i: -1, status: 0 };
const captured = [];
const capture = config.capture ?? null;

const started = performance.now();
let lastResponseAt = started;

const request = {
  method: config.method ?? 'POST',
  path: config.path ?? '/',
  headers: config.headers ?? {},
  setupRequest(req, context) {
    const i = sent++ % bodies.length;
    context.i = i;
    req.body = bodies[i];
    return req;
  },
  onResponse(statusCode, body, context) {
    last = { i: context.i, status: statusCode };
    if (capture && statusCode >= 200 && statusCode < 300 && (ok + 1) % capture.every === 0 && captured.length < capture.max) {
      try {
        const token = JSON.parse(body);
        captured.push({ i: context.i, id: token.id, fingerprint: token.fingerprint, created_at: token.created_at });
      } catch {
        /* a 2xx that is not JSON is counted by the harness's own checks */
      }
    }
  },
};

let progressTimer = null;
const autocannonOptions = {
  url: config.url,
  connections: config.connections,
  pipelining: config.pipelining ?? 1,
  duration: config.duration,
  amount: config.amount,
  overallRate: config.overallRate,
  timeout: config.timeout ?? 10,
  requests: [request],
};
// autocannon takes an explicit `undefined` (e.g. duration) as a value, so leave unset options out.
for (const key of Object.keys(autocannonOptions)) if (autocannonOptions[key] === undefined || autocannonOptions[key] === null) delete autocannonOptions[key];

const instance = autocannon(
  autocannonOptions,
  (error, result) => {
    clearInterval(progressTimer);
    if (error) {
      process.stderr.write(`autocannon failed: ${error.stack ?? error}\n`);
      process.exit(1);
    }
    const elapsed = Math.max(0.001, (lastResponseAt - started) / 1000);
    const out = {
      elapsed_s: Math.round(elapsed * 1000) / 1000,
      connections: config.connections,
      pipelining: config.pipelining ?? 1,
      overall_rate: config.overallRate ?? null,
      responses,
      ok,
      non2xx: responses - ok,
      status,
      errors: result.errors,
      timeouts: result.timeouts,
      rps: Math.round((ok / elapsed) * 10) / 10,
      responses_per_s: Math.round((responses / elapsed) * 10) / 10,
      latency: collect ? all.summary() : null,
      by_kind: Object.fromEntries(
        kindNames.map((name, k) => [
          name,
          { responses: perKind[k].responses, ok: perKind[k].ok, rps: Math.round((perKind[k].ok / elapsed) * 10) / 10, latency: perKind[k].samples.summary() },
        ]),
      ),
      autocannon: {
        duration: result.duration,
        requests_average: result.requests?.average,
        latency_p50: result.latency?.p50,
        latency_p99: result.latency?.p99,
        '2xx': result['2xx'],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
      },
      captured,
    };
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
  },
);

instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  responses++;
  lastResponseAt = performance.now();
  const good = statusCode >= 200 && statusCode < 300;
  if (good) ok++;
  status[statusCode] = (status[statusCode] ?? 0) + 1;
  if (collect) all.push(responseTime);
  if (kindIndex && last.i >= 0) {
    const k = perKind[kindIndex[last.i]];
    k.responses++;
    if (good) k.ok++;
    if (collect) k.samples.push(responseTime);
  }
});

progressTimer = config.progressMs
  ? setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      process.stderr.write(JSON.stringify({ progress: { responses, ok, elapsed_s: Math.round(elapsed * 10) / 10 } }) + '\n');
    }, config.progressMs)
  : null;

for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => instance.stop());
