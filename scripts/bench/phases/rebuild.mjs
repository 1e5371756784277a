// Phase 5: `projections rebuild` of the CLI on the same data dir while the API runs; then waits until the API has
// switched to the rebuilt read model (its log line), is ready and finds a sampled token. From the CLI's start until a
// second after that, GET /health/live is polled every 20 ms: its slowest answer is how long the API's event loop was
// held while it followed the swap (reopening the file, building its search bitmaps from it).
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { countTokens, expectStatus, search } from '../api.mjs';
import { BenchError, PATHS } from '../context.mjs';
import { exitWithinTimeLeft, waitForLine } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase, serviceEnv } from '../service.mjs';
import { onLines, readMemory, request, sleep, summarize } from '../util.mjs';

export async function rebuild(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'rebuild');
  ctx.log(report.rebuildIntro());
  const env = serviceEnv(ctx, 'unused-by-the-cli-but-harmless-000000000000');
  delete env.VAULT_BOOTSTRAP_KEY;
  delete env.PORT;
  const logFrom = existsSync(ctx.serviceLog) ? statSync(ctx.serviceLog).size : 0;
  const probe = holdProbe(ctx);
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
  const cliExitedAt = performance.now();
  const wall = (cliExitedAt - started) / 1000;
  if (outcome.timeout) throw new BenchError(`rebuild: out of time (--max-minutes ${opts.maxMinutes})`);
  if (outcome.code !== 0) throw new BenchError(`rebuild exited with ${outcome.code ?? outcome.signal}:\n${stderrTail.join('\n')}`);
  let result;
  try {
    result = JSON.parse(stdout.trim().split('\n').pop());
  } catch {
    throw new BenchError(`rebuild printed no JSON result: ${stdout.slice(-500)}`);
  }
  // The API notices the new file within a second (it polls the pointer every 500 ms) and logs the switch.
  const switchStarted = performance.now();
  await waitForLine(ctx.serviceLog, 'switched to the rebuilt read model', ctx.service.child, 'the service', 60_000, { from: logFrom });
  const switchedAfter = Math.round(performance.now() - switchStarted);
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
  const readyAfter = Math.round(performance.now() - switchStarted);
  const visible = await countTokens(ctx);
  await sleep(1000);
  const hold = await probe.stop(cliExitedAt);
  if (!found) ctx.warn('rebuild: within 60 s the API was not ready with lag 0 and the sampled token found');
  if (visible !== ctx.created) ctx.warn(`rebuild: search counts ${visible} tokens afterwards, ${ctx.created} before`);
  ctx.results.rebuild = {
    ...result,
    wall_seconds: Math.round(wall * 100) / 100,
    cli_peak_rss_bytes: peak.rss || null,
    ready_with_lag_0: found,
    switched_after_ms: switchedAfter,
    ready_after_ms: readyAfter,
    visible_after: visible,
    live_probe: hold,
  };
  ctx.log(report.rebuild(ctx.results.rebuild, ctx.results.baseline));
}

/**
 * Polls GET /health/live every 20 ms until stopped; resolves the number of answers and the slowest, in ms, overall and
 * apart for the answers asked while the CLI ran (its rebuild shares the cores with the API) and after it exited (the
 * API following the swap).
 */
function holdProbe(ctx) {
  let stopped = false;
  const answers = [];
  const done = (async () => {
    while (!stopped) {
      const asked = performance.now();
      const res = await request(ctx.service.port, 'GET', '/health/live', { timeoutMs: 60_000 });
      if (res.status === 200) answers.push({ asked, ms: res.ms });
      await sleep(20);
    }
  })();
  return {
    stop: async (cliExitedAt) => {
      stopped = true;
      await done;
      const { count, p50, max } = summarize(answers.map((a) => a.ms));
      const slowest = (list) => (list.length ? summarize(list.map((a) => a.ms)).max : null);
      return {
        answers: count,
        max_ms: max,
        p50_ms: p50,
        during_cli_max_ms: slowest(answers.filter((a) => a.asked < cliExitedAt)),
        after_cli_max_ms: slowest(answers.filter((a) => a.asked >= cliExitedAt)),
      };
    },
  };
}
