// Phase 5: `projections rebuild` of the CLI on the same data dir while the API runs; then waits until the API is ready
// on the rebuilt read model and finds a sampled token.
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { countTokens, expectStatus, search } from '../api.mjs';
import { BenchError, PATHS } from '../context.mjs';
import { exitWithinTimeLeft } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase, serviceEnv } from '../service.mjs';
import { onLines, readMemory, request, sleep } from '../util.mjs';

export async function rebuild(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'rebuild');
  ctx.log(report.rebuildIntro());
  const env = serviceEnv(ctx, 'unused-by-the-cli-but-harmless-000000000000');
  delete env.VAULT_BOOTSTRAP_KEY;
  delete env.PORT;
  const started = performance.now();
  const child = spawn(process.execPath, ['--no-node-snapshot', PATHS.CLI_MAIN, 'projections', 'rebuild'], { cwd: PATHS.ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  ctx.children.add(child);
  let stdout = '';
  const stderrTail = [];
  let lastPrint = 0;
  const peak = { rss: 0 };
  const memTimer = setInterval(() => {
    const m = readMemory(child.pid);
    if (m) peak.rss = Math.max(peak.rss, m.hwm ?? 0, m.rss ?? 0);
  }, 100);
  child.stdout.on('data', (c) => (stdout += c));
  onLines(child.stderr, (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 30) stderrTail.shift();
    if (performance.now() - lastPrint >= 5000 || !line.startsWith('rebuild:')) {
      lastPrint = performance.now();
      ctx.log(report.childLine(line));
    }
  });
  const outcome = await exitWithinTimeLeft(ctx, child);
  clearInterval(memTimer);
  ctx.children.delete(child);
  const wall = (performance.now() - started) / 1000;
  if (outcome.timeout) throw new BenchError(`rebuild: out of time (--max-minutes ${opts.maxMinutes})`);
  if (outcome.code !== 0) throw new BenchError(`rebuild exited with ${outcome.code ?? outcome.signal}:\n${stderrTail.join('\n')}`);
  let result;
  try {
    result = JSON.parse(stdout.trim().split('\n').pop());
  } catch {
    throw new BenchError(`rebuild printed no JSON result: ${stdout.slice(-500)}`);
  }
  // The API switches to the rebuilt read model within a second: wait until it is ready and finds a sampled token.
  const switchStarted = performance.now();
  let found = false;
  while (performance.now() - switchStarted < 60_000) {
    const health = await request(ctx.service.port, 'GET', '/health');
    if (health.status === 200 && health.json?.projection?.lag_events === 0) {
      const s = await expectStatus('search after rebuild', search(ctx, { query: `id:${ctx.samples[0].id}`, page: 1, size: 20 }), [200]);
      found = s.json.pagination.total_items === 1;
      if (found) break;
    }
    await sleep(100);
  }
  const visible = await countTokens(ctx);
  if (!found) ctx.warn('rebuild: within 60 s the API was not ready with lag 0 and the sampled token found');
  if (visible !== ctx.created) ctx.warn(`rebuild: search counts ${visible} tokens afterwards, ${ctx.created} before`);
  ctx.results.rebuild = {
    ...result,
    wall_seconds: Math.round(wall * 100) / 100,
    cli_peak_rss_bytes: peak.rss || null,
    ready_with_lag_0: found,
    ready_after_ms: Math.round(performance.now() - switchStarted),
    visible_after: visible,
  };
  ctx.log(report.rebuild(ctx.results.rebuild, ctx.results.baseline));
}
