import { VaultMetrics } from './metrics';

const lag = { events: 3, eventsCapped: false, seconds: 1.5 };

describe('VaultMetrics', () => {
  afterEach(() => jest.restoreAllMocks());

  it('reads the gauges at scrape time, and labels tokens by the catalogue\'s types only, each always present', async () => {
    const metrics = new VaultMetrics({ projectionLag: async () => lag, tokenCounts: async () => ({ card_number: 4, 'tenant-42': 9 }) });
    const text = await metrics.render();
    expect(text).toContain('vault_projection_lag_events 3\n');
    expect(text).toContain('vault_projection_lag_seconds 1.5\n');
    expect(text).toContain('vault_tokens{type="card_number"} 4\n');
    expect(text).toContain('vault_tokens{type="token"} 0\n');
    expect(text).not.toContain('tenant-42');
  });

  it('reports an unknown lag as NaN and leaves out the token counts when a store fails, and still answers the scrape', async () => {
    const metrics = new VaultMetrics({
      projectionLag: async () => Promise.reject(new Error('store down')),
      tokenCounts: async () => Promise.reject(new Error('store down')),
    });
    metrics.rateLimited();
    const text = await metrics.render();
    // prom-client writes NaN as `Nan`, which Prometheus parses (case-insensitively) as NaN.
    expect(text).toMatch(/^vault_projection_lag_events nan$/im);
    expect(text).toMatch(/^vault_projection_lag_seconds nan$/im);
    expect(text).not.toMatch(/^vault_tokens\{/m);
    expect(text).toContain('vault_rate_limited_requests_total 1\n');
  });

  it('counts tokens at most once every 10 s, however often it is scraped, and retries at once after a failure', async () => {
    let now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const calls: number[] = [];
    let fail = false;
    const metrics = new VaultMetrics({
      projectionLag: async () => lag,
      tokenCounts: async (at) => {
        calls.push(at);
        if (fail) throw new Error('store down');
        return { token: calls.length };
      },
    });
    await Promise.all([metrics.render(), metrics.render()]);
    now += 9_999;
    expect(await metrics.render()).toContain('vault_tokens{type="token"} 1\n');
    now += 1;
    expect(await metrics.render()).toContain('vault_tokens{type="token"} 2\n');
    expect(calls).toEqual([1_000_000, 1_010_000]);
    fail = true;
    now += 10_000;
    expect(await metrics.render()).not.toMatch(/^vault_tokens\{/m);
    fail = false;
    expect(await metrics.render()).toContain('vault_tokens{type="token"} 4\n');
  });

  it('counts requests by route pattern and status, appended events by type, searches by plan', async () => {
    const metrics = new VaultMetrics({ projectionLag: async () => lag, tokenCounts: async () => ({}) });
    metrics.requestFinished('GET', '/tokens/:id', 200, 0.003);
    metrics.requestFinished('GET', '/tokens/:id', 200, 0.2);
    metrics.eventsAppended('TokenCreated', 2);
    metrics.searched('terms', 0.004);
    const text = await metrics.render();
    expect(text).toContain('vault_http_requests_total{method="GET",route="/tokens/:id",status="200"} 2\n');
    expect(text).toContain('vault_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/tokens/:id",status="200"} 1\n');
    expect(text).toContain('vault_events_appended_total{type="TokenCreated"} 2\n');
    expect(text).toContain('vault_token_search_duration_seconds_count{plan="terms"} 1\n');
  });
});
