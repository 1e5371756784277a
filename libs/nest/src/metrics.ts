// Every Prometheus metric of the API, in one registry per application (tests run several apps in one process). Labels
// come from small fixed sets: route patterns, status codes, event and token types, search plans. None carries a tenant
// id, token id, key or value, and none is taken from a raw path.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ProjectionLag } from '@vault/application';
import { TOKEN_TYPES } from '@vault/domain';

/** What the gauges read at scrape time. */
export interface MetricsSources {
  /** The read models' lag behind the event log, as GET /health reports it. */
  projectionLag(): Promise<ProjectionLag>;
  /** Live tokens of every tenant by type (TokenSearchIndex.countByType). */
  tokenCounts(now: number): Promise<Record<string, number>>;
  /** How far the furthest-behind webhook is behind the log; null where this process delivers no webhook. */
  webhookLag?(): Promise<{ events: number; seconds: number } | null>;
}

/** The token counts visit every token: a scrape reuses the last answer for this long, so the work per minute is bounded. */
const TOKEN_COUNT_MAX_AGE_MS = 10_000;

const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class VaultMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'vault_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern (`unrouted` when answered before routing) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'vault_http_request_duration_seconds',
    help: 'Time from receiving a request to finishing its answer, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly appended = new Counter({
    name: 'vault_events_appended_total',
    help: 'Events this process appended to the event log, by event type.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  private readonly searchSeconds = new Histogram({
    name: 'vault_token_search_duration_seconds',
    help: 'Token search time in the read model, by the plan the adapter chose.',
    labelNames: ['plan'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly rateLimitedRequests = new Counter({
    name: 'vault_rate_limited_requests_total',
    help: 'Requests refused with 429 because their API key ran out of its rate limit.',
    registers: [this.registry],
  });
  private readonly proxyInvocations = new Counter({
    name: 'vault_proxy_invocations_total',
    help: 'Proxy invocations by the status of the answer (the destination\'s, or the vault\'s own for a refused or failed one) and by whether the vault answered itself.',
    labelNames: ['status', 'vault_error'] as const,
    registers: [this.registry],
  });
  private readonly proxyDestinationSeconds = new Histogram({
    name: 'vault_proxy_destination_duration_seconds',
    help: 'How long proxy destinations took to answer, from sending the request to its whole answer.',
    buckets: SECONDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly webhookAttempts = new Counter({
    name: 'vault_webhook_deliveries_total',
    help: "Webhook delivery attempts by the state they left the delivery in (pending: retried later) and by the receiver's status (`none` when no answer came).",
    labelNames: ['state', 'status'] as const,
    registers: [this.registry],
  });
  private readonly webhookLatency = new Histogram({
    name: 'vault_webhook_delivery_lag_seconds',
    help: 'From an event being appended to each attempt to deliver it.',
    buckets: [...SECONDS_BUCKETS, 30, 60, 300, 3600],
    registers: [this.registry],
  });
  private tokenCounts: { at: number; counts: Promise<Record<string, number>> } | null = null;

  constructor(private readonly sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry });
    // Both lag gauges come from one reading, taken by whichever is collected first in a scrape.
    let lag: Promise<ProjectionLag | null> | null = null;
    const readLag = () =>
      (lag ??= this.sources
        .projectionLag()
        .catch(() => null)
        .finally(() => (lag = null)));
    new Gauge({
      name: 'vault_projection_lag_events',
      help: 'Events in the log not yet applied to the read models (counted up to a cap, as in GET /health).',
      registers: [this.registry],
      async collect() {
        // NaN when a store does not answer: 0 would say the read models are caught up.
        this.set((await readLag())?.events ?? NaN);
      },
    });
    new Gauge({
      name: 'vault_projection_lag_seconds',
      help: 'Age of the oldest event not yet applied to the read models; 0 when they are caught up.',
      registers: [this.registry],
      async collect() {
        this.set((await readLag())?.seconds ?? NaN);
      },
    });
    let webhookLag: Promise<{ events: number; seconds: number } | null> | null = null;
    const readWebhookLag = () =>
      (webhookLag ??= (this.sources.webhookLag?.() ?? Promise.resolve(null)).catch(() => null).finally(() => (webhookLag = null)));
    new Gauge({
      name: 'vault_webhook_lag_events',
      help: 'Events of the log after the furthest-behind webhook’s position (counted up to a cap); absent where this process delivers none.',
      registers: [this.registry],
      async collect() {
        const lag = await readWebhookLag();
        this.reset();
        if (lag !== null) this.set(lag.events);
      },
    });
    new Gauge({
      name: 'vault_webhook_lag_seconds',
      help: 'Age of the oldest of those events; 0 when every webhook is caught up.',
      registers: [this.registry],
      async collect() {
        const lag = await readWebhookLag();
        this.reset();
        if (lag !== null) this.set(lag.seconds);
      },
    });
    const readTokenCounts = () => this.readTokenCounts();
    new Gauge({
      name: 'vault_tokens',
      help: `Live (unexpired) tokens of every tenant, by type; recounted at most every ${TOKEN_COUNT_MAX_AGE_MS / 1000} s.`,
      labelNames: ['type'] as const,
      registers: [this.registry],
      async collect() {
        const counts = await readTokenCounts().catch(() => null);
        this.reset();
        // Only the catalogue's types become labels, each always present.
        if (counts) for (const type of TOKEN_TYPES) this.set({ type }, counts[type] ?? 0);
      },
    });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text. A source that fails leaves its gauge out (or NaN) rather than failing the scrape. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** `route` is the route pattern (`/tokens/:id`), never the path the caller sent. */
  requestFinished(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  eventsAppended(type: string, count: number): void {
    this.appended.inc({ type }, count);
  }

  searched(plan: string, seconds: number): void {
    this.searchSeconds.observe({ plan }, seconds);
  }

  rateLimited(): void {
    this.rateLimitedRequests.inc();
  }

  /** One proxy invocation answered; `destinationSeconds` null when it never reached its destination. */
  proxyInvoked(status: number, vaultError: boolean, destinationSeconds: number | null): void {
    this.proxyInvocations.inc({ status: String(status), vault_error: String(vaultError) });
    if (destinationSeconds !== null) this.proxyDestinationSeconds.observe(destinationSeconds);
  }

  /** One webhook delivery attempt; `status` null when no answer came. */
  webhookAttempted(state: string, status: number | null, lagSeconds: number): void {
    this.webhookAttempts.inc({ state, status: status === null ? 'none' : String(status) });
    this.webhookLatency.observe(lagSeconds);
  }

  private readTokenCounts(): Promise<Record<string, number>> {
    const now = Date.now();
    if (this.tokenCounts && now - this.tokenCounts.at < TOKEN_COUNT_MAX_AGE_MS) return this.tokenCounts.counts;
    const counts = this.sources.tokenCounts(now);
    const entry = { at: now, counts };
    this.tokenCounts = entry;
    // A failed count is not kept: the next scrape tries again.
    counts.catch(() => {
      if (this.tokenCounts === entry) this.tokenCounts = null;
    });
    return counts;
  }
}
