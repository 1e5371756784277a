// Phase 2: creates with a fixed `amount` per load-generator run until the vault holds --tokens, with progress every
// 5 s; keeps a few hundred created tokens for the search phase.
import { performance } from 'node:perf_hooks';
import { checkStatuses, createConfig, keepSamples, makeBodies, recount } from '../api.mjs';
import { BenchError } from '../context.mjs';
import { runLoad } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';
import { readMemory } from '../util.mjs';

export async function loadToN(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'load');
  ctx.log(report.loadIntro(opts));
  const startCount = ctx.created;
  const started = performance.now();
  let rate = ctx.results.create.tokens_per_s || 500;
  let workerSeconds = 0;
  let lastPrint = performance.now();
  let stalls = 0;
  // About 4,000 sampled tokens: the latency phase needs distinct ids and fingerprints for its warm-up and its timing.
  const captureEvery = Math.max(1, Math.floor(opts.tokens / 4000));
  const print = (done) => {
    const elapsed = (performance.now() - started) / 1000;
    const r = elapsed > 0 ? (done - startCount) / elapsed : 0;
    ctx.log(report.loadProgress({ done, target: opts.tokens, rate: r, elapsed, eta: r > 0 ? (opts.tokens - done) / r : Infinity }));
  };
  if (ctx.created >= opts.tokens) ctx.log(report.loadNothing(ctx.created));
  while (ctx.created < opts.tokens) {
    const amount = Math.min(opts.tokens - ctx.created, Math.max(5_000, Math.min(100_000, Math.round(rate * 30))));
    const bodies = makeBodies(ctx, amount + 2 * opts.connections + 16);
    const base = ctx.created;
    const r = await runLoad(
      ctx,
      'load',
      createConfig(ctx, bodies, {
        amount,
        connections: Math.min(opts.connections, amount),
        latencies: false,
        capture: { every: captureEvery, max: 4000 },
      }),
      {
        onProgress: (p) => {
          if (performance.now() - lastPrint >= 5000) {
            lastPrint = performance.now();
            print(base + p.ok);
          }
        },
      },
    );
    keepSamples(ctx, r.captured, bodies.objects);
    ctx.created += r.ok; // runs with `amount` wait for every answer, so this count is exact
    ctx.acked += r.ok;
    workerSeconds += r.elapsed_s;
    if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) checkStatuses(ctx, 'load', r);
    if (r.ok === 0) {
      if (++stalls >= 2) throw new BenchError(`load: two runs in a row created no token (statuses ${JSON.stringify(r.status)})`);
    } else stalls = 0;
    rate = r.rps || rate;
  }
  print(ctx.created);
  const elapsed = (performance.now() - started) / 1000;
  const visible = await recount(ctx, 'load');
  const loaded = ctx.created - startCount;
  ctx.results.load = {
    tokens: ctx.created,
    loaded_in_phase: loaded,
    seconds: Math.round(elapsed * 1000) / 1000,
    tokens_per_s: elapsed > 0 ? loaded / elapsed : null,
    tokens_per_worker_s: workerSeconds > 0 ? loaded / workerSeconds : null,
    visible_in_search: visible,
    samples: ctx.samples.length,
    rss_bytes_at_n: readMemory(ctx.service.pid)?.rss ?? null,
    acked: ctx.acked,
  };
  ctx.log(report.load(ctx.results.load, ctx.results.baseline));
}
