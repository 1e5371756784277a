// The service's HTTP API as the phases use it: status checks, search, token counts, create bodies and the sampled
// tokens kept for the search phase, load-generator configs for POST /tokens.
import { BenchError } from './context.mjs';
import { searchableValues } from './mix.mjs';
import { request } from './util.mjs';

export const headers = (ctx) => ({ 'content-type': 'application/json', 'svc-api-key': ctx.apiKey });

export async function expectStatus(what, responsePromise, expected) {
  const res = await responsePromise;
  if (!expected.includes(res.status)) throw new BenchError(`${what}: expected ${expected.join(' or ')}, got ${res.status}: ${res.text.slice(0, 500)}`);
  return res;
}

export const search = (ctx, body, timeoutMs = 120_000) => request(ctx.service.port, 'POST', '/tokens/search', { body, headers: { 'svc-api-key': ctx.apiKey }, timeoutMs });

export async function countTokens(ctx) {
  const res = await expectStatus('count tokens', search(ctx, { query: null, page: 1, size: 1 }), [200]);
  return res.json.pagination.total_items;
}

/** Re-reads the token count from the service; warns if it is below the creates answered 2xx (a lost write). */
export async function recount(ctx, label) {
  const visible = await countTokens(ctx);
  if (visible < ctx.acked) ctx.warn(`${label}: search counts ${visible} tokens, but ${ctx.acked} creates were answered 2xx`);
  ctx.created = Math.max(visible, ctx.created);
  return visible;
}

/** `n` create bodies of the token mix, as objects and as the JSON strings sent. */
export function makeBodies(ctx, n) {
  const objects = new Array(n);
  const strings = new Array(n);
  for (let i = 0; i < n; i++) {
    objects[i] = ctx.mix();
    strings[i] = JSON.stringify(objects[i]);
  }
  return { objects, strings };
}

/** Keeps the tokens the load generator captured (id, fingerprint, created_at, body index) with their searchable values. */
export function keepSamples(ctx, captured, objects) {
  for (const c of captured) {
    const body = objects[c.i];
    if (!body || !c.id) continue;
    const values = searchableValues(body);
    ctx.samples.push({ id: c.id, fingerprint: c.fingerprint, created_at: c.created_at, type: body.type, full: values?.full ?? null, last4: values?.last4 ?? null, customer_id: body.metadata?.customer_id ?? null });
  }
}

/** A load.mjs config for POST /tokens rotating through `bodies`. */
export const createConfig = (ctx, bodies, extra) => ({
  url: `http://127.0.0.1:${ctx.service.port}`,
  method: 'POST',
  path: '/tokens',
  headers: headers(ctx),
  bodies: bodies.strings,
  connections: ctx.opts.connections,
  pipelining: 1,
  ...extra,
});

/** Warns about non-2xx answers, connection errors and timeouts; with `fatal`, a run without one 2xx is an error. */
export function checkStatuses(ctx, label, result, { allowed = [], fatal = true } = {}) {
  const bad = Object.entries(result.status).filter(([code]) => !(code >= 200 && code < 300) && !allowed.includes(Number(code)));
  if (bad.length > 0 || result.errors > 0 || result.timeouts > 0) {
    ctx.warn(`${label}: ${result.non2xx} non-2xx responses (${bad.map(([c, n]) => `${c}×${n}`).join(', ') || 'none'}), ${result.errors} connection errors, ${result.timeouts} timeouts`);
  }
  if (result.ok === 0 && fatal) throw new BenchError(`${label}: not one 2xx response (statuses ${JSON.stringify(result.status)})`);
  if (result.ok === 0) ctx.warn(`${label}: not one 2xx response within the run; its figures are empty`);
}
