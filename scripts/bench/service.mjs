// The service under test: its environment, start (as a user would: node dist/apps/api/src/main.js, PORT=0), stop with
// SIGTERM, restart with other settings on the same data dir, and its memory sampled every second per phase.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BenchError, PATHS } from './context.mjs';
import { stopChild, waitForLine } from './processes.mjs';
import { readMemory, request, sleep } from './util.mjs';

/** The default of 2,000 requests/s per key would throttle the bench; the limiter still runs on every request. */
export const RATE_LIMIT = 1_000_000;

/** The service's environment: ours without VAULT_*, PORT and MEILI_MASTER_KEY, then the bench's settings, then --service-env, then `overrides`. */
export function serviceEnv(ctx, bootstrapKey, overrides = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VAULT_') && k !== 'PORT' && k !== 'MEILI_MASTER_KEY') env[k] = v;
  return {
    ...env,
    PORT: '0',
    VAULT_DATA_DIR: ctx.dataDir,
    VAULT_EVENT_STORE: 'embedded',
    VAULT_SEARCH: 'embedded',
    VAULT_BOOTSTRAP_KEY: bootstrapKey,
    VAULT_RATE_LIMIT_PER_SECOND: String(RATE_LIMIT),
    ...ctx.opts.serviceEnv,
    ...overrides,
  };
}

/**
 * The node flags `npm start` gives the API (package.json's start script), so that the bench runs the service as a
 * user does (--no-node-snapshot, for isolated-vm).
 */
export const START_FLAGS = (() => {
  const script = JSON.parse(readFileSync(join(PATHS.ROOT, 'package.json'), 'utf8')).scripts.start;
  const flags = script.match(/\bnode((?:\s+--\S+)*)\s+dist\/apps\/api\/src\/main\.js/)?.[1].trim().split(/\s+/).filter(Boolean);
  if (!flags?.includes('--no-node-snapshot')) throw new Error(`package.json's start script does not run the API with --no-node-snapshot: ${script}`);
  return flags;
})();

/** Starts the service on ctx.dataDir with `overrides` on top of serviceEnv; resolves once it logs its port. */
export async function startService(ctx, overrides = {}) {
  const from = existsSync(ctx.serviceLog) ? statSync(ctx.serviceLog).size : 0;
  const fd = openSync(ctx.serviceLog, 'a');
  const env = serviceEnv(ctx, ctx.bootstrapKey, overrides);
  const child = spawn(process.execPath, [...START_FLAGS, ...ctx.opts.serviceArgs, PATHS.API_MAIN], { cwd: PATHS.ROOT, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  const service = { child, port: null, pid: child.pid, overrides, stopping: false };
  ctx.service = service;
  child.on('exit', (code, signal) => {
    if (!service.stopping) ctx.fail(`the service exited unexpectedly (${code !== null ? `exit code ${code}` : signal})`);
  });
  const started = performance.now();
  const line = await waitForLine(ctx.serviceLog, 'vault API listening', child, 'the service', 120_000, { from });
  service.port = line.port;
  const startup_ms = Math.round(performance.now() - started);
  ctx.serviceProcesses.push({ pid: child.pid, env_overrides: overrides, startup_ms, vm_hwm_bytes: null, exit: null });
  return { port: line.port, pid: child.pid, startup_ms, line, flags: [...START_FLAGS, ...ctx.opts.serviceArgs] };
}

/** SIGTERM to the running service; resolves { code, signal, killed, ms } and records its peak RSS first. */
export async function stopService(ctx, timeoutMs = 30_000) {
  const service = ctx.service;
  const processRecord = ctx.serviceProcesses.find((p) => p.pid === service.pid);
  sampleMemory(ctx);
  processRecord.vm_hwm_bytes = readMemory(service.pid)?.hwm ?? null;
  service.stopping = true;
  const outcome = await stopChild(ctx, service.child, timeoutMs);
  processRecord.exit = { code: outcome.code, signal: outcome.signal, killed: !!outcome.killed, ms: outcome.ms };
  ctx.service = null;
  return processRecord.exit;
}

/**
 * Stops the service (it must exit 0 on SIGTERM) and starts it again on the same data dir with `overrides`, then waits
 * until /health reports the read model caught up (lag 0), so that a phase starts on a ready service.
 */
export async function restartService(ctx, overrides) {
  const stopped = await stopService(ctx);
  if (stopped.killed || stopped.code !== 0) {
    throw new BenchError(`the service did not shut down cleanly on SIGTERM when restarted (${JSON.stringify(stopped)})`);
  }
  const started = await startService(ctx, overrides);
  const waitStarted = performance.now();
  for (;;) {
    const health = await request(ctx.service.port, 'GET', '/health', { timeoutMs: 5000 });
    if (health.status === 200 && health.json?.projection?.lag_events === 0) break;
    if (performance.now() - waitStarted > 60_000) throw new BenchError(`the restarted service was not ready with lag 0 within 60 s (${health.status}: ${health.text.slice(0, 300)})`);
    await sleep(50);
  }
  return { stopped, started, ready_ms: Math.round(performance.now() - waitStarted) };
}

// Memory: VmRSS of the running service every second, per phase (the phase a sample falls in is the one last entered).

export function startMemorySampling(ctx) {
  ctx.memory = { samples: 0, peakRss: 0, phase: 'start-up', byPhase: {} };
  const timer = setInterval(() => sampleMemory(ctx), 1000);
  timer.unref();
}

function sampleMemory(ctx) {
  const memory = ctx.memory;
  if (!ctx.service || !memory) return;
  const m = readMemory(ctx.service.pid);
  if (!m || m.rss === null) return;
  memory.samples++;
  memory.peakRss = Math.max(memory.peakRss, m.rss);
  memory.byPhase[memory.phase] = Math.max(memory.byPhase[memory.phase] ?? 0, m.rss);
}

/** Samples once for the phase ending, then counts samples towards `name`. */
export function enterPhase(ctx, name) {
  sampleMemory(ctx);
  ctx.memory.phase = name;
}
