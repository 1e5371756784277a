// GET /metrics: Prometheus text, no key, and after real traffic the counters, histograms and gauges a dashboard reads,
// with nothing in them that names a tenant, token, key or value.
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** `name{labels}` → value, for every sample of the exposition text. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('GET /metrics', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '5' });
  });
  afterAll(() => test.close());

  it('counts requests, events, tokens, searches and rate-limit refusals, without a key and without naming anyone', async () => {
    const secrets = ['918-27-3645', '4111111111111111', 'Zq9-metrics-secret', 'meta-Zq9-secret'];
    const writer = await createApplication(test, { name: 'writer', type: 'private', permissions: ['token:create', 'token:read', 'token:search'] });
    const as = (method: 'get' | 'post', path: string, body?: object) => {
      const r = test.http()[method](path).set('SVC-API-KEY', writer.key);
      return body ? r.send(body) : r;
    };
    const ssn = await as('post', '/tokens', { type: 'social_security_number', data: secrets[0], metadata: { note: secrets[3] } });
    const card = await as('post', '/tokens', { type: 'card_number', data: secrets[1] });
    const json = await as('post', '/tokens', { type: 'token', data: { note: secrets[2] } });
    expect([ssn.status, card.status, json.status]).toEqual([201, 201, 201]);
    expect((await as('get', `/tokens/${ssn.body.id}`)).status).toBe(200);
    expect((await as('post', '/tokens/search', { query: `data:${secrets[0]}` })).status).toBe(200);
    expect((await as('post', '/tokens/search', { query: '' })).status).toBe(200);
    expect((await test.http().get(`/tokens/${secrets[0]}`).set('SVC-API-KEY', 'not-a-key-Zq9')).status).toBe(401);
    // Answered before routing: a body of the wrong media type, an unknown path.
    expect((await as('post', '/tokens').set('Content-Type', 'text/plain').send(secrets[2])).status).toBe(415);
    expect((await as('get', `/nothing/${secrets[1]}`)).status).toBe(404);
    const chatty = await createApplication(test, { name: 'chatty', type: 'private', permissions: ['token:read'] });
    let limited = 0;
    for (let i = 0; i < 20 && limited === 0; i++) {
      if ((await test.http().get('/permissions').set('SVC-API-KEY', chatty.key)).status === 429) limited++;
    }
    expect(limited).toBe(1);

    const response = await test.http().get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = response.text;
    const got = samples(text);
    const value = (name: string) => got.get(name);

    expect(value('vault_http_requests_total{method="POST",route="/tokens",status="201"}')).toBe(3);
    expect(value('vault_http_requests_total{method="GET",route="/tokens/:id",status="200"}')).toBe(1);
    expect(value('vault_http_requests_total{method="GET",route="/tokens/:id",status="401"}')).toBe(1);
    expect(value('vault_http_request_duration_seconds_count{method="POST",route="/tokens/search",status="200"}')).toBe(2);
    expect(value('vault_http_request_duration_seconds_sum{method="POST",route="/tokens/search",status="200"}')).toBeGreaterThan(0);
    expect(value('vault_http_request_duration_seconds_bucket{le="+Inf",method="POST",route="/tokens",status="201"}')).toBe(3);
    expect(value('vault_events_appended_total{type="TokenCreated"}')).toBe(3);
    // The bootstrap's management application, writer and chatty.
    expect(value('vault_events_appended_total{type="ApplicationCreated"}')).toBe(3);
    expect(value('vault_tokens{type="social_security_number"}')).toBe(1);
    expect(value('vault_tokens{type="card_number"}')).toBe(1);
    expect(value('vault_tokens{type="token"}')).toBe(1);
    expect(value('vault_tokens{type="employer_id_number"}')).toBe(0);
    expect(value('vault_projection_lag_events')).toBe(0);
    expect(value('vault_projection_lag_seconds')).toBe(0);
    expect(value('vault_token_search_duration_seconds_count{plan="bitmaps"}')).toBeGreaterThanOrEqual(1);
    const searches = [...got].filter(([name]) => name.startsWith('vault_token_search_duration_seconds_count'));
    expect(searches.reduce((sum, [, n]) => sum + n, 0)).toBe(2);
    expect(value('vault_http_requests_total{method="POST",route="unrouted",status="415"}')).toBe(1);
    expect(value('vault_http_requests_total{method="GET",route="unrouted",status="404"}')).toBe(1);
    expect(value('vault_rate_limited_requests_total')).toBe(1);
    expect(value('vault_http_requests_total{method="GET",route="/permissions",status="429"}')).toBe(1);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);

    for (const secret of [...secrets, writer.key, chatty.key, BOOTSTRAP_KEY, 'not-a-key-Zq9', ssn.body.id, card.body.id, json.body.id, ssn.body.tenant_id, writer.id, chatty.id]) {
      expect(text).not.toContain(secret);
    }
    expect(text).not.toMatch(UUID);
  });

  it('is never rate-limited: it needs no key, so no key\'s bucket runs dry', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) statuses.push((await test.http().get('/metrics')).status);
    expect(statuses).toEqual(Array(15).fill(200));
  });
});
