// The context every phase shares: options, the temp dir, the results collector, the running service and the
// children to kill on failure, the API key, the tokens created so far; plus logging and the failure path.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { tokenMix } from './mix.mjs';
import { tailFile } from './util.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');

export const PATHS = {
  ROOT,
  API_MAIN: join(ROOT, 'dist', 'apps', 'api', 'src', 'main.js'),
  CLI_MAIN: join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js'),
  LOAD: join(HERE, 'load.mjs'),
  BASELINE: join(HERE, 'baseline-server.mjs'),
  FRAMEWORK_FLOOR: join(HERE, 'framework-floor-server.mjs'),
  PROXY_DESTINATION: join(HERE, 'proxy-destination-server.mjs'),
  WEBHOOK_RECEIVER: join(HERE, 'webhook-receiver-server.mjs'),
  WORST_CASE_BODIES: join(HERE, 'worst-case-bodies.mjs'),
  MEILI_CATCH_UP: join(HERE, 'meili-catch-up.mjs'),
};

/** A failure the harness explains itself (no stack trace): the run stops with exit 1. */
export class BenchError extends Error {}

export function createContext(opts) {
  const tmp = mkdtempSync(join(os.tmpdir(), 'vault-bench-'));
  const deadline = performance.now() + opts.maxMinutes * 60_000;
  const ctx = {
    opts,
    tmp,
    dataDir: join(tmp, 'data'),
    serviceLog: join(tmp, 'service.log'),
    /** Load workers, baseline server, CLI: killed on failure. */
    children: new Set(),
    /** The running service: { child, port, pid, env, stopping }; see service.mjs. */
    service: null,
    /** Every service process of the run, in order: { pid, started_ms, env_overrides, exit }. */
    serviceProcesses: [],
    bootstrapKey: null,
    apiKey: null,
    /** Tokens in the vault. autocannon stops a timed run with requests in flight: the service still creates those
     *  tokens but autocannon never counts their answers, so after each timed run the count comes from the service. */
    created: 0,
    /** Creates answered 2xx (a lower bound of `created`). */
    acked: 0,
    /** Tokens kept for the search phase: { id, fingerprint, created_at, type, full, last4, customer_id }. */
    samples: [],
    mix: tokenMix({ seed: opts.seed, customers: Math.max(1000, Math.round(opts.tokens / 5)) }),
    results: { machine: null, settings: null, baseline: null, framework_floor: null, create: null, load: null, lag: null, startup_at_n: null, latency_1conn: null, search: null, rebuild: null, meili_catch_up: null, proxy: null, webhooks: null, memory: null, shutdown: null, worst_case_bodies: null, targets: null, warnings: [] },
    /** Failures that do not stop the run (its other figures are still worth having) but make it exit 1 at the end. */
    failures: [],
    failed: false,
    remainingMs: () => deadline - performance.now(),
    log: (line = '') => process.stdout.write(line + '\n'),
    warn: (line) => {
      ctx.results.warnings.push(line);
      ctx.log(`WARNING: ${line}`);
    },
    /** Stops the run now: kills every child and the service, prints the service's last lines, exits 1. */
    fail: (message) => {
      if (ctx.failed) return;
      ctx.failed = true;
      process.stderr.write(`\nbench FAILED: ${message}\n`);
      for (const child of ctx.children) child.kill('SIGKILL');
      if (ctx.service) {
        process.stderr.write(`\n${serviceTail(ctx)}\n`);
        const { child } = ctx.service;
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      if (opts.json) {
        try {
          writeFileSync(opts.json, JSON.stringify({ ...ctx.results, failed: message }, null, 2) + '\n');
        } catch {
          /* best effort */
        }
      }
      ctx.cleanup();
      process.exit(1);
    },
    cleanup: () => {
      if (opts.keepData) process.stderr.write(`kept the data dir and service log in ${tmp}\n`);
      else rmSync(tmp, { recursive: true, force: true });
    },
  };
  return ctx;
}

/** The service's last output: its last 30 lines other than per-request access logs, then its last 5 lines. */
export function serviceTail(ctx) {
  const lines = tailFile(ctx.serviceLog, 2000);
  const isAccessLog = (l) => l.includes('"msg":"request"');
  const notable = lines.slice(0, -5).filter((l) => !isAccessLog(l)).slice(-30);
  const last = lines.slice(-5);
  return [
    `service output (${ctx.serviceLog}), last ${notable.length} lines other than access logs${notable.length === 0 ? ' (none among its last 2,000 lines)' : ':'}`,
    ...notable.map((l) => '  ' + l),
    'last 5 lines:',
    ...last.map((l) => '  ' + l),
  ].join('\n');
}

/** A throughput as a share of the baseline's req/s (null before the baseline ran). */
export const ratioToBaseline = (ctx, rps) => (ctx.results.baseline ? rps / ctx.results.baseline.rps : null);

/** The machine the run is on, for the report and the JSON. */
export function machineInfo() {
  const cpus = os.cpus();
  const autocannonVersion = (() => {
    try {
      return createRequire(import.meta.url)('autocannon/package.json').version;
    } catch {
      return null;
    }
  })();
  return {
    date: new Date().toISOString(),
    hostname: os.hostname(),
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cores: cpus.length,
    available_parallelism: os.availableParallelism?.() ?? cpus.length,
    cpu_model: cpus[0]?.model ?? 'unknown',
    total_memory_bytes: os.totalmem(),
    node: process.version,
    autocannon: autocannonVersion,
    load_average: loadAverage(),
  };
}

export const loadAverage = () => os.loadavg().map((n) => Math.round(n * 100) / 100);
