// Phase 1: POST /tokens of the token mix for --duration at --connections.
import { checkStatuses, createConfig, keepSamples, makeBodies, recount } from '../api.mjs';
import { ratioToBaseline } from '../context.mjs';
import { runLoad } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';

export async function create(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'create');
  ctx.log(report.createIntro(opts));
  if (opts.warmup > 0) {
    const bodies = makeBodies(ctx, Math.ceil(opts.warmup * 5000) + 2 * opts.connections);
    const w = await runLoad(ctx, 'create warm-up', createConfig(ctx, bodies, { duration: opts.warmup, latencies: false }));
    checkStatuses(ctx, 'create warm-up', w);
    ctx.acked += w.ok;
  }
  const bodies = makeBodies(ctx, Math.min(300_000, Math.max(20_000, Math.ceil(opts.duration * 8000))));
  const r = await runLoad(ctx, 'create', createConfig(ctx, bodies, { duration: opts.duration, capture: { every: 25, max: 200 } }));
  checkStatuses(ctx, 'create', r);
  ctx.acked += r.ok;
  await recount(ctx, 'create');
  keepSamples(ctx, r.captured, bodies.objects);
  ctx.results.create = { tokens_per_s: r.rps, ratio_to_baseline: ratioToBaseline(ctx, r.rps), latency: r.latency, created: r.ok, non2xx: r.non2xx, status: r.status, errors: r.errors, timeouts: r.timeouts, duration_s: r.elapsed_s, connections: r.connections };
  ctx.log(report.create(ctx.results.create, ctx.results.baseline));
}
