// Baseline: a minimal node:http server (../baseline-server.mjs) loaded with the same settings as the service, so every
// throughput can be given as a share of it.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { checkStatuses } from '../api.mjs';
import { PATHS } from '../context.mjs';
import { runLoad, stopChild, waitForLine } from '../processes.mjs';
import * as report from '../report.mjs';

export async function baseline(ctx) {
  const { opts } = ctx;
  ctx.log(report.baselineIntro());
  const { child, port } = await startBaseline(ctx);
  const body = JSON.stringify({ query: 'id:00000000-0000-4000-8000-000000000000', page: 1, size: 20 });
  const config = { url: `http://127.0.0.1:${port}`, method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, bodies: [body], connections: opts.connections, pipelining: 1 };
  if (opts.warmup > 0) await runLoad(ctx, 'baseline warm-up', { ...config, duration: opts.warmup, latencies: false });
  const r = await runLoad(ctx, 'baseline', { ...config, duration: opts.duration });
  await stopChild(ctx, child);
  checkStatuses(ctx, 'baseline', r);
  ctx.results.baseline = { rps: r.rps, latency: r.latency, connections: r.connections, duration_s: r.elapsed_s, non2xx: r.non2xx, errors: r.errors, request: `POST / with a ${body.length}-byte JSON body, answered with a small JSON body (empty search result)` };
  ctx.log(report.baseline(ctx.results.baseline, opts));
}

async function startBaseline(ctx) {
  const out = join(ctx.tmp, 'baseline.log');
  const fd = openSync(out, 'a');
  const child = spawn(process.execPath, [PATHS.BASELINE], { cwd: PATHS.ROOT, stdio: ['ignore', fd, fd], env: { ...process.env, PORT: '0' } });
  closeSync(fd);
  ctx.children.add(child);
  const line = await waitForLine(out, 'baseline listening', child, 'the baseline server', 15_000);
  return { child, port: line.port };
}
