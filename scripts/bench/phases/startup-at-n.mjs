// Start-up at N tokens (target: ≤ 10 s at 1,000,000): after loading, the service is stopped (it must exit 0 on
// SIGTERM) and started again on the same data dir with the run's settings; the time runs from the spawn until
// GET /health/ready first answers 200 (polled every POLL_MS once the port is known). The data's files were just
// written, so they are in the OS page cache: this is a restart, not a cold boot.
import { performance } from 'node:perf_hooks';
import { countTokens } from '../api.mjs';
import { BenchError } from '../context.mjs';
import * as report from '../report.mjs';
import { enterPhase, startService, stopService } from '../service.mjs';
import { request, sleep } from '../util.mjs';

const POLL_MS = 10;
const GIVE_UP_MS = 300_000;
export const STARTUP_TARGET_MS = 10_000;

export async function startupAtN(ctx) {
  enterPhase(ctx, 'startup-at-n');
  const tokens = await countTokens(ctx);
  ctx.log(report.startupIntro(tokens));
  const stopped = await stopService(ctx);
  if (stopped.killed || stopped.code !== 0) throw new BenchError(`startup-at-n: the service did not shut down cleanly on SIGTERM (${JSON.stringify(stopped)})`);
  const spawned = performance.now();
  const started = await startService(ctx, {});
  const listening = performance.now() - spawned;
  let polls = 0;
  let last = null;
  for (;;) {
    last = await request(ctx.service.port, 'GET', '/health/ready', { timeoutMs: 30_000 });
    polls++;
    if (last.status === 200) break;
    if (performance.now() - spawned > GIVE_UP_MS) throw new BenchError(`startup-at-n: /health/ready did not answer 200 within ${GIVE_UP_MS / 1000} s (${last.status}: ${last.text.slice(0, 300)})`);
    await sleep(POLL_MS);
  }
  const readyMs = performance.now() - spawned;
  ctx.results.startup_at_n = {
    tokens,
    stop_ms: stopped.ms,
    pid: started.pid,
    listening_ms: Math.round(listening),
    ready_ms: Math.round(readyMs),
    ready_polls: polls,
    projection: last.json?.projection ?? null,
    target_ms: STARTUP_TARGET_MS,
  };
  ctx.log(report.startupAtN(ctx.results.startup_at_n));
}
