// Phase 3: projection lag, on a service restarted with VAULT_WRITE_WAIT_MS=0 so that a create answers as soon as its
// event is stored rather than once the read model has it (read-your-writes would make the lag one search round trip
// by construction). About --lag-rate creates/s: autocannon sends most of them at a fixed rate, the harness every
// --lag-sample-every-th itself and polls search for it until it is returned; a token never returned within
// --lag-timeout fails the run. The service is restarted with the other phases' settings afterwards.
import { performance } from 'node:perf_hooks';
import { checkStatuses, createConfig, makeBodies, recount, search } from '../api.mjs';
import { runLoad } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase, restartService } from '../service.mjs';
import { int, request, sleep, summarize } from '../util.mjs';

const POLL_MS = 2;
const LAG_ENV = { VAULT_WRITE_WAIT_MS: '0' };

export async function lag(ctx) {
  const { opts } = ctx;
  enterPhase(ctx, 'lag');
  const every = opts.lagSampleEvery;
  const harnessRate = opts.lagRate / every;
  const plan = { every, harnessRate, cannonRate: Math.max(1, Math.round(opts.lagRate - harnessRate)), pollMs: POLL_MS };
  ctx.log(report.lagIntro(plan, opts));
  ctx.log(report.serviceRestarted(await restartService(ctx, LAG_ENV), LAG_ENV));
  ctx.results.lag = { write_wait_ms: Number(LAG_ENV.VAULT_WRITE_WAIT_MS), ...(await measureLag(ctx, plan)) };
  const { achieved_creates_per_s: achieved, failures, not_searchable_within_timeout: notFound } = ctx.results.lag;
  if (Object.keys(failures).length > 0) ctx.warn(`lag: ${JSON.stringify(failures)}`);
  if (notFound > 0) {
    const message = `lag: ${notFound} created tokens were not returned by search within ${opts.lagTimeout} s`;
    ctx.warn(message);
    ctx.failures.push(message);
  }
  if (achieved < opts.lagRate * 0.9) ctx.warn(`lag: the service sustained only ${int(achieved)} creates/s, short of the ${int(opts.lagRate)}/s asked for; the lag was measured at that rate, with the service saturated`);
  ctx.log(report.lag(ctx.results.lag, ctx.results.baseline, opts));
  ctx.log(report.serviceRestarted(await restartService(ctx, {}), {}));
  await recount(ctx, 'lag');
}

/** The measurement on the running service: resolves the phase's figures (ctx.results.lag). */
export async function measureLag(ctx, { harnessRate, cannonRate }) {
  const { opts } = ctx;
  const port = ctx.service.port;
  const bodies = makeBodies(ctx, Math.ceil(cannonRate * opts.duration * 1.2) + 2 * opts.connections + 16);
  const cannon = runLoad(ctx, 'lag load', createConfig(ctx, bodies, { duration: opts.duration, overallRate: cannonRate, latencies: true }));
  cannon.catch(() => {}); // awaited below; avoid an unhandled rejection while the harness loop runs

  const lags = [];
  const createMs = [];
  const polls = [];
  const foundSearchMs = [];
  const failures = {};
  const count = (key) => (failures[key] = (failures[key] ?? 0) + 1);
  let firstPollHits = 0;
  let notFound = 0;
  let harnessOk = 0;
  let pending = 0;
  let searches = 0;
  let healthMaxLag = 0;
  const healthTimer = setInterval(async () => {
    try {
      const h = await request(port, 'GET', '/health', { timeoutMs: 5000 });
      if (h.json?.projection?.lag_events !== undefined) healthMaxLag = Math.max(healthMaxLag, h.json.projection.lag_events);
    } catch {
      /* the service-death handler reports a dead service */
    }
  }, 500);

  /** One timed create: from its 2xx, search by id every POLL_MS until the token is returned or the timeout passes. */
  const one = async () => {
    const res = await request(port, 'POST', '/tokens', { body: ctx.mix(), headers: { 'svc-api-key': ctx.apiKey } });
    const answered = performance.now();
    if (res.status < 200 || res.status >= 300) return count(`create ${res.status}`);
    harnessOk++;
    createMs.push(res.ms);
    if (res.headers['x-projection-pending']) pending++;
    const id = res.json.id;
    for (let n = 1; ; n++) {
      const s = await search(ctx, { query: `id:${id}`, page: 1, size: 20 });
      searches++;
      if (s.status !== 200) return count(`search ${s.status}`);
      if (s.json.data.some((t) => t.id === id)) {
        lags.push(performance.now() - answered);
        polls.push(n);
        foundSearchMs.push(s.ms);
        if (n === 1) firstPollHits++;
        return;
      }
      if (performance.now() - answered > opts.lagTimeout * 1000) {
        notFound++;
        return;
      }
      await sleep(POLL_MS);
    }
  };

  const started = performance.now();
  const running = [];
  for (let k = 0; ; k++) {
    const at = started + (k * 1000) / harnessRate;
    if (at - started >= opts.duration * 1000) break;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    running.push(one().catch((error) => count(`error ${error.message.slice(0, 60)}`)));
  }
  const r = await cannon;
  await Promise.all(running);
  clearInterval(healthTimer);
  const seconds = Math.max(r.elapsed_s, (performance.now() - started) / 1000);
  checkStatuses(ctx, 'lag load', r);
  ctx.acked += r.ok + harnessOk;

  return {
    target_rate: opts.lagRate,
    achieved_creates_per_s: (r.ok + harnessOk) / opts.duration,
    lag_ms: summarize(lags),
    samples: lags.length,
    harness_creates: harnessOk,
    projection_pending: pending,
    not_searchable_within_timeout: notFound,
    timeout_s: opts.lagTimeout,
    polls: summarize(polls),
    poll_interval_ms: POLL_MS,
    first_poll_hits: firstPollHits,
    found_search_ms: summarize(foundSearchMs),
    searches,
    harness_create_ms: summarize(createMs),
    autocannon_create_latency: r.latency,
    health_max_lag_events: healthMaxLag,
    failures,
    seconds,
  };
}
