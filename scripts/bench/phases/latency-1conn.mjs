// 1-connection latency: each query kind of the search mix, one request at a time on one keep-alive
// connection, every execution a first run: no query text repeats within the phase (latency-kinds.mjs), and the phase
// runs on a freshly restarted service (after startup-at-n), so no result or total cache can answer it. Warm-up
// requests (their own texts, with --warmup > 0), every kind's before any kind is timed, only warm the code (V8
// optimises a function after some hundreds of calls: a service restarted a moment ago runs its first requests on
// unoptimised code, twice as slow) and the page cache. After the timing, up to
// VERIFY_PER_KIND responses of each kind have their total_items checked for exactness through other queries.
// Targets: every kind p99 ≤ 50 ms with exact totals; the selective kinds p50 ≤ 1 ms and p99 ≤ 3 ms.
import { search } from '../api.mjs';
import { BenchError } from '../context.mjs';
import * as report from '../report.mjs';
import { enterPhase } from '../service.mjs';
import { summarize } from '../util.mjs';
import { latencyKinds } from './latency-kinds.mjs';

/** A kind stops after this many seconds once it has MIN_REQUESTS answers (broad kinds can take seconds each). */
const KIND_SECONDS = 30;
const MIN_REQUESTS = 20;
const WARMUP_SELECTIVE = 300;
const WARMUP_BROAD = 30;
const VERIFY_PER_KIND = 10;
export const LATENCY_TARGETS = { broadP99: 50, selectiveP50: 1, selectiveP99: 3 };

export async function latency1conn(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'latency-1conn');
  const n = opts.latencyRequests;
  const warm = opts.warmup > 0;
  ctx.log(report.latencyIntro(n, { seconds: KIND_SECONDS, min: MIN_REQUESTS, warm: warm ? [WARMUP_SELECTIVE, WARMUP_BROAD] : null }));
  const send = (body) => search(ctx, { query: body.query, page: body.page, size: body.size }, 300_000);
  const count = async (query) => {
    const res = await send({ query, page: 1, size: 1 });
    if (res.status !== 200) throw new BenchError(`latency: counting ${JSON.stringify(query)} answered ${res.status}: ${res.text.slice(0, 300)}`);
    return res.json.pagination.total_items;
  };
  const kinds = await latencyKinds(ctx, n + WARMUP_SELECTIVE, count);
  const out = { requests_per_kind: n, kind_seconds: KIND_SECONDS, min_requests: MIN_REQUESTS, targets: LATENCY_TARGETS, kinds: {}, selective_pooled: null };
  const selectiveTimes = [];
  // A small vault (--tokens in the thousands) has fewer distinct query texts than that: its kinds warm up on what is
  // left once the timed requests are set aside (each kind's count is in the JSON as warmup_requests).
  const warmupsOf = (kind) =>
    warm ? Math.max(0, Math.min(kind.selective ? WARMUP_SELECTIVE : WARMUP_BROAD, kind.bodies.length - Math.min(n, MIN_REQUESTS))) : 0;
  for (const kind of kinds) {
    if (kind.bodies.length <= warmupsOf(kind)) throw new BenchError(`latency: kind "${kind.name}" has only ${kind.bodies.length} distinct queries`);
  }
  // Warm-up, round robin over the kinds, so that the request path shared by all of them is warm before the first is timed.
  for (let i = 0; kinds.some((kind) => i < warmupsOf(kind)); i++) {
    for (const kind of kinds) if (i < warmupsOf(kind)) await expectOk(kind, kind.bodies[i], await send(kind.bodies[i]));
  }
  for (const kind of kinds) {
    const warmups = warmupsOf(kind);
    const pool = kind.bodies;
    const timed = pool.slice(warmups, warmups + n);
    const times = [];
    const answers = [];
    const started = performance.now();
    for (const body of timed) {
      const res = await expectOk(kind, body, await send(body));
      times.push(res.ms);
      if (kind.selective) selectiveTimes.push(res.ms);
      answers.push([body, res]);
      if (times.length >= MIN_REQUESTS && performance.now() - started > KIND_SECONDS * 1000) break;
    }
    const step = Math.max(1, Math.floor(answers.length / VERIFY_PER_KIND));
    const checked = answers.filter((_, i) => i % step === 0).slice(0, VERIFY_PER_KIND);
    let exact = 0;
    for (const [body, res] of checked) {
      if (await kind.verify(res, body, (b) => send(b))) exact++;
      else ctx.warn(`latency: ${kind.name}: total_items ${res.json.pagination.total_items} is not the exact count of its matches (page ${body.page})`);
    }
    const latency = summarize(times);
    out.kinds[kind.name] = {
      selective: kind.selective,
      example: kind.example,
      distinct_queries: pool.length,
      warmup_requests: warmups,
      requests: times.length,
      seconds: Math.round((performance.now() - started) / 10) / 100,
      stopped_by_time: times.length < timed.length,
      latency,
      totals_checked: checked.length,
      totals_exact: exact,
      verdict: verdictOf(kind.selective, latency, exact === checked.length),
    };
  }
  out.selective_pooled = summarize(selectiveTimes);
  ctx.results.latency_1conn = out;
  ctx.log(report.latency1conn(out));
}

/** PASS when the kind meets its targets: p99 ≤ 50 ms and exact totals; selective kinds also p50 ≤ 1 ms and p99 ≤ 3 ms. */
export function verdictOf(selective, latency, exact) {
  if (latency.count === 0) return 'n/a';
  const t = LATENCY_TARGETS;
  const ok = exact && latency.p99 <= t.broadP99 && (!selective || (latency.p50 <= t.selectiveP50 && latency.p99 <= t.selectiveP99));
  return ok ? 'PASS' : 'MISS';
}

async function expectOk(kind, body, res) {
  if (res.status !== 200) throw new BenchError(`latency: ${kind.name}: search ${JSON.stringify(body.query)} page ${body.page} answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res;
}
