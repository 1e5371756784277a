// After phase 5, with MEILI_URL set: ../meili-catch-up.mjs runs the projector from this log into an empty Meilisearch
// read model (fresh index prefix, deleted afterwards) for at most --meili-seconds. Informational: a failure is a
// warning, not a failed run.
import { spawn } from 'node:child_process';
import { BenchError, PATHS } from '../context.mjs';
import { exitWithinTimeLeft } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';
import { onLines } from '../util.mjs';

export async function meiliCatchUp(ctx) {
  const { opts } = ctx;
  ctx.log(report.meiliIntro());
  if (!process.env.MEILI_URL) {
    ctx.results.meili_catch_up = { skipped: 'MEILI_URL is not set' };
    ctx.log(report.meiliSkipped());
    return;
  }
  enterPhase(ctx, 'meilisearch catch-up');
  const args = ['--no-node-snapshot', PATHS.MEILI_CATCH_UP, '--data-dir', ctx.dataDir, '--seconds', String(opts.meiliSeconds)];
  const child = spawn(process.execPath, args, { cwd: PATHS.ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  ctx.children.add(child);
  let stdout = '';
  const stderrTail = [];
  child.stdout.on('data', (c) => (stdout += c));
  onLines(child.stderr, (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
  });
  const outcome = await exitWithinTimeLeft(ctx, child);
  ctx.children.delete(child);
  if (outcome.timeout) throw new BenchError(`Meilisearch catch-up: out of time (--max-minutes ${opts.maxMinutes})`);
  let result = null;
  try {
    result = outcome.code === 0 ? JSON.parse(stdout.trim().split('\n').pop()) : null;
  } catch {
    result = null;
  }
  if (!result) {
    ctx.results.meili_catch_up = { failed: stderrTail.join('\n') || `exit ${outcome.code ?? outcome.signal}` };
    ctx.warn(`Meilisearch catch-up failed (exit ${outcome.code ?? outcome.signal}): ${stderrTail.join(' / ')}`);
    ctx.log();
    return;
  }
  ctx.results.meili_catch_up = result;
  ctx.log(report.meili(result, opts, process.env.MEILI_URL));
}
