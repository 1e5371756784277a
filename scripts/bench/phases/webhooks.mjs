// Webhooks: how long a token create takes to reach a webhook's receiver at a steady write rate. A local receiver
// (../webhook-receiver-server.mjs, node:http in a process of its own) notes when each delivery came; the service runs
// with VAULT_WEBHOOK_ALLOWED_HOSTS naming it and WEBHOOKS webhooks subscribed to token.created, one path each. The
// harness sends --webhook-rate creates/s (200) for --duration seconds on its own timer, open loop: a create is sent when
// it is due, whether or not the earlier ones have answered. It then waits until every webhook has every create that
// answered 201 (at most SETTLE_MS). Per webhook: delivered vs expected, duplicates, and the delivery latency of each
// event (its first receipt): since the create's 201 reached the harness, and since the event's `created_at` (its
// append). Target: every event delivered, each within TARGET_MS of its created_at.
import { expectStatus, headers, makeBodies } from '../api.mjs';
import { BenchError, loadAverage, PATHS } from '../context.mjs';
import { stopChild } from '../processes.mjs';
import * as report from '../report.mjs';
import { enterPhase, restartService } from '../service.mjs';
import { cpuSeconds, request, sleep, summarize } from '../util.mjs';
import { startServerChild } from './baseline.mjs';
import { serviceStart } from './service-start.mjs';

export const WEBHOOK_TARGETS = { withinMs: 10_000 };

/** Webhooks subscribed to token.created, each on its own receiver path. */
const WEBHOOKS = 3;
/** After the last create answered, how long the harness waits for the deliveries still missing. */
const SETTLE_MS = 60_000;
/** Creates sent, each delivered to every webhook, before the timed run (with --warmup > 0). */
const WARMUP_CREATES = 50;

const epochMs = () => performance.timeOrigin + performance.now();

export async function webhooks(ctx) {
  const { opts } = ctx;
  const receiver = await startServerChild(ctx, PATHS.WEBHOOK_RECEIVER, 'webhook receiver listening', 'the webhook receiver', 'webhook-receiver.log');
  const env = { VAULT_WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}` };
  if (ctx.service) ctx.log(report.serviceRestarted(await restartService(ctx, env), env));
  else await serviceStart(ctx, env);
  enterPhase(ctx, 'webhooks');
  const rate = opts.webhookRate;
  ctx.log(report.webhooksIntro(opts, receiver.port, WEBHOOKS, rate));
  const loadBefore = loadAverage();

  const port = ctx.service.port;
  const hooks = [];
  for (let i = 1; i <= WEBHOOKS; i++) {
    const path = `/hook/${i}`;
    const created = await expectStatus(
      `create webhook ${i}`,
      request(port, 'POST', '/webhooks', { body: { name: `bench ${i}`, url: `http://127.0.0.1:${receiver.port}${path}`, events: ['token.created'] }, headers: { 'svc-api-key': ctx.bootstrapKey } }),
      [201],
    );
    hooks.push({ id: created.json.id, path });
  }
  const received = async () => (await expectStatus('read the receiver', request(receiver.port, 'GET', '/received'), [200])).json;
  const waitDelivered = async (ids, timeoutMs) => {
    const until = performance.now() + timeoutMs;
    for (;;) {
      const got = await received();
      const missing = hooks.map((h) => {
        const seen = new Set((got[h.path] ?? []).map((r) => r[1]));
        return ids.filter((id) => !seen.has(id)).length;
      });
      if (missing.every((n) => n === 0) || performance.now() > until) return { got, missing };
      await sleep(250);
    }
  };

  const count = Math.ceil(rate * opts.duration);
  const bodies = makeBodies(ctx, count + (opts.warmup > 0 ? WARMUP_CREATES : 0));
  if (opts.warmup > 0) {
    // Warm the create path, the runners and their connections to the receiver; the timed run starts with them idle.
    const warm = [];
    for (let i = 0; i < WARMUP_CREATES; i++) {
      const res = await request(port, 'POST', '/tokens', { body: bodies.strings[count + i], headers: headers(ctx) });
      if (res.status === 201) warm.push(res.json.id);
    }
    const { missing } = await waitDelivered(warm, 30_000);
    if (missing.some((n) => n > 0)) throw new BenchError(`webhooks: warm-up creates not delivered within 30 s (missing per webhook: ${missing.join(', ')})`);
  }

  // The timed run: create i is due at i / rate seconds after the start.
  const creates = new Array(count);
  const inFlight = [];
  const cpuBefore = cpuSeconds(ctx.service.pid);
  const started = performance.now();
  let sent = 0;
  let peakInFlight = 0;
  let open = 0;
  while (sent < count) {
    const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
    for (; sent < due; sent++) {
      const i = sent;
      const sentAt = epochMs();
      open++;
      peakInFlight = Math.max(peakInFlight, open);
      inFlight.push(
        request(port, 'POST', '/tokens', { body: bodies.strings[i], headers: headers(ctx), timeoutMs: 60_000 })
          .then(
            (res) => (creates[i] = { status: res.status, id: res.status === 201 ? res.json?.id ?? null : null, sentAt, answeredAt: epochMs() }),
            (error) => (creates[i] = { status: 0, id: null, sentAt, answeredAt: epochMs(), error: error.message }),
          )
          .finally(() => open--),
      );
    }
    await sleep(2);
  }
  const sendSeconds = (performance.now() - started) / 1000;
  await Promise.all(inFlight);
  const answeredSeconds = (performance.now() - started) / 1000;
  const ok = creates.filter((c) => c.status === 201 && c.id);
  const statuses = {};
  for (const c of creates) statuses[c.status] = (statuses[c.status] ?? 0) + 1;
  if (ok.length === 0) throw new BenchError(`webhooks: not one create answered 201 (statuses ${JSON.stringify(statuses)})`);
  if (ok.length < count) ctx.warn(`webhooks: ${count - ok.length} of ${count} creates did not answer 201 (statuses ${JSON.stringify(statuses)})`);

  const ids = ok.map((c) => c.id);
  const { got, missing } = await waitDelivered(ids, SETTLE_MS);
  const waitedSeconds = (performance.now() - started) / 1000 - answeredSeconds;
  // The service's CPU from the first create until the last delivery (or the end of the wait), over the creates.
  const serviceCpu = cpuSeconds(ctx.service.pid) - cpuBefore;
  const byId = new Map(ok.map((c) => [c.id, c]));
  const results = [];
  for (const [h, hook] of hooks.entries()) {
    const receipts = (got[hook.path] ?? []).filter((r) => byId.has(r[1]));
    const first = new Map();
    for (const r of receipts) if (!first.has(r[1])) first.set(r[1], r);
    const sinceAnswer = [];
    const sinceCreated = [];
    for (const [id, r] of first) {
      sinceAnswer.push(r[3] - byId.get(id).answeredAt);
      sinceCreated.push(r[3] - Date.parse(r[2]));
    }
    const listed = await expectStatus(`list webhook ${h + 1}'s deliveries`, request(port, 'GET', `/webhooks/${hook.id}/deliveries?size=1`, { headers: { 'svc-api-key': ctx.bootstrapKey } }), [200]);
    // The webhook's sustained delivery rate: its events over the time from its first receipt to its last.
    const times = [...first.values()].map((r) => r[3]);
    const span = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : 0;
    const late = sinceCreated.filter((v) => v > WEBHOOK_TARGETS.withinMs).length;
    results.push({
      webhook: hook.path,
      expected: ids.length,
      delivered: first.size,
      missing: missing[h],
      duplicates: receipts.length - first.size,
      delivered_per_s: span > 0 ? Math.round((first.size / span) * 10) / 10 : null,
      delivered_late: late,
      listed_deliveries: listed.json.pagination.total_items,
      latency_since_answer_ms: summarize(sinceAnswer),
      latency_since_created_at_ms: summarize(sinceCreated),
      verdict: first.size === ids.length && late === 0 ? 'PASS' : 'MISS',
    });
  }
  await stopChild(ctx, receiver.child);

  const createLatency = summarize(creates.map((c) => c.answeredAt - c.sentAt));
  const out = {
    receiver: 'node:http in its own process (scripts/bench/webhook-receiver-server.mjs), answering 200 with an empty body',
    webhooks: WEBHOOKS,
    events: ['token.created'],
    rate_per_s: rate,
    duration_s: opts.duration,
    creates: {
      sent: count,
      answered_201: ok.length,
      statuses,
      send_seconds: Math.round(sendSeconds * 1000) / 1000,
      achieved_rate_per_s: Math.round((count / sendSeconds) * 10) / 10,
      all_answered_after_s: Math.round(answeredSeconds * 1000) / 1000,
      peak_in_flight: peakInFlight,
      latency_ms: createLatency,
    },
    waited_for_deliveries_s: Math.round(waitedSeconds * 1000) / 1000,
    service_cpu_s: Math.round(serviceCpu * 100) / 100,
    service_cpu_ms_per_create: Math.round((serviceCpu * 1000 * 100) / count) / 100,
    load_average: { before: loadBefore, after: loadAverage() },
    targets: WEBHOOK_TARGETS,
    by_webhook: results,
  };
  out.verdict = results.every((r) => r.verdict === 'PASS') ? 'PASS' : 'MISS';
  ctx.results.webhooks = out;
  ctx.log(report.webhooks(out));
}
