// Phase 4: each query kind loaded alone, then the selective mix (timed) and the full mix (a fixed number of requests).
import { checkStatuses, headers } from '../api.mjs';
import { ratioToBaseline } from '../context.mjs';
import { runLoad } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';
import { searchKinds } from './search-kinds.mjs';

/** Connections for the broad (non-selective) search kinds. */
const BROAD_CONNECTIONS = 2;
/** Requests each broad kind answers (a fixed amount, not a timed run). */
const BROAD_REQUESTS = 12;

export async function search(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'search');
  ctx.log(report.searchIntro(ctx.created, opts));
  const kinds = await searchKinds(ctx);
  const share = Math.max(2, Math.round((opts.duration / kinds.length) * 10) / 10);
  const config = (bodies, kindsOfBodies, duration, extra = {}) => ({
    url: `http://127.0.0.1:${ctx.service.port}`,
    method: 'POST',
    path: '/tokens/search',
    headers: headers(ctx),
    bodies: bodies.map((b) => JSON.stringify(b)),
    kinds: kindsOfBodies,
    connections: opts.connections,
    pipelining: 1,
    duration,
    ...extra,
  });
  // Mixes rotate through the kinds: request i is kind i % k, each kind rotating through its own bodies.
  const interleave = (list) => {
    const bodies = [];
    const labels = [];
    const longest = Math.max(...list.map((k) => k.bodies.length));
    const rounds = Math.max(longest, 50);
    for (let i = 0; i < rounds; i++) {
      for (const k of list) {
        bodies.push(k.bodies[i % k.bodies.length]);
        labels.push(k.name);
      }
    }
    return { bodies, labels };
  };
  const selective = kinds.filter((k) => k.selective);
  const all = interleave(kinds);
  const sel = interleave(selective);
  // Only the selective mix warms up: a broad query keeps the service's one event loop busy, so queued broad requests
  // would still be running when the next measurement starts.
  if (opts.warmup > 0) await runLoad(ctx, 'search warm-up', config(sel.bodies, sel.labels, opts.warmup, { latencies: false }));

  const mixRequests = 4 * opts.connections;
  const out = { kinds: {}, selective_mix: null, mix: null, per_kind_seconds: share, selective_kinds: selective.map((k) => k.name), broad: { requests: BROAD_REQUESTS, connections: BROAD_CONNECTIONS } };
  const figures = (r) => ({ rps: r.rps, ratio_to_baseline: ratioToBaseline(ctx, r.rps), latency: r.latency, responses: r.responses, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, seconds: r.elapsed_s, connections: r.connections });
  const record = (kind, r) => {
    checkStatuses(ctx, `search ${kind.name}`, r, { fatal: false });
    out.kinds[kind.name] = { example: kind.example, queries: kind.bodies.length, ...figures(r) };
  };
  const recordMix = (key, r, extra = {}) => {
    checkStatuses(ctx, `search ${key}`, r, { fatal: false });
    out[key] = { ...figures(r), by_kind: r.by_kind, ...extra };
  };
  // Selective kinds and their mix: timed runs at full concurrency.
  for (const kind of selective) record(kind, await runLoad(ctx, `search ${kind.name}`, config(kind.bodies, null, share, { timeout: 120 })));
  recordMix('selective_mix', await runLoad(ctx, 'search selective_mix', config(sel.bodies, sel.labels, opts.duration, { timeout: 120 })));
  // Broad kinds cost time in proportion to their matches (exact totals). A timed run would stop with every request
  // still queued and leave them running into the next measurement, so each broad kind answers a fixed number of
  // requests at BROAD_CONNECTIONS, and the full mix a fixed number at full concurrency; the labels say so.
  for (const kind of kinds.filter((k) => !k.selective)) {
    record(kind, await runLoad(ctx, `search ${kind.name}`, config(kind.bodies, null, undefined, { amount: BROAD_REQUESTS, connections: BROAD_CONNECTIONS, timeout: 600 })));
  }
  recordMix('mix', await runLoad(ctx, 'search mix', config(all.bodies, all.labels, undefined, { amount: mixRequests, timeout: 600 })), { requests: mixRequests });
  ctx.results.search = out;
  ctx.log(report.search(out, ctx.results.baseline, opts));
}
