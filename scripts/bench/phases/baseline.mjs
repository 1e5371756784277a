// Baseline: a minimal node:http server (../baseline-server.mjs) loaded with the same settings as the service, so every
// throughput can be given as a share of it. The framework floor (framework-floor.mjs) is started and loaded the same way.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { checkStatuses } from '../api.mjs';
import { PATHS } from '../context.mjs';
import { runLoad, stopChild, waitForLine } from '../processes.mjs';
import * as report from '../report.mjs';

export const BASELINE_BODY = JSON.stringify({ query: 'id:00000000-0000-4000-8000-000000000000', page: 1, size: 20 });

export async function baseline(ctx) {
  const { opts } = ctx;
  ctx.log(report.baselineIntro());
  const { child, port } = await startServerChild(ctx, PATHS.BASELINE, 'baseline listening', 'the baseline server', 'baseline.log');
  const r = await loadLikeBaseline(ctx, port, 'baseline');
  await stopChild(ctx, child);
  checkStatuses(ctx, 'baseline', r);
  ctx.results.baseline = { rps: r.rps, latency: r.latency, connections: r.connections, duration_s: r.elapsed_s, non2xx: r.non2xx, errors: r.errors, request: `POST / with a ${BASELINE_BODY.length}-byte JSON body, answered with a small JSON body (empty search result)` };
  ctx.log(report.baseline(ctx.results.baseline, opts));
}

/** The baseline's load on 127.0.0.1:port: --warmup unreported seconds, then --duration at --connections; the result. */
export async function loadLikeBaseline(ctx, port, label) {
  const { opts } = ctx;
  const config = { url: `http://127.0.0.1:${port}`, method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, bodies: [BASELINE_BODY], connections: opts.connections, pipelining: 1 };
  if (opts.warmup > 0) await runLoad(ctx, `${label} warm-up`, { ...config, duration: opts.warmup, latencies: false });
  return runLoad(ctx, label, { ...config, duration: opts.duration });
}

/** Starts a server script (PORT=0) as a child logging to <tmp>/<logName>; resolves once it prints `msg` with its port. */
export async function startServerChild(ctx, script, msg, what, logName) {
  const out = join(ctx.tmp, logName);
  const fd = openSync(out, 'a');
  const child = spawn(process.execPath, [script], { cwd: PATHS.ROOT, stdio: ['ignore', fd, fd], env: { ...process.env, PORT: '0' } });
  closeSync(fd);
  ctx.children.add(child);
  const line = await waitForLine(out, msg, child, what, 30_000);
  return { child, port: line.port, line };
}
