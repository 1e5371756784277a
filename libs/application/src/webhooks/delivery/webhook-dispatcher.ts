// Webhook delivery: an event-stream consumer outside the read models. It learns of webhooks from their streams and
// keeps one runner per live webhook (webhook-runner.ts), each following the log from its own checkpoint: a slow
// receiver delays only its own webhook. It runs while this process holds the projector lease (or in the projector app),
// so one process delivers at a time; a runner's recorded outcomes make a takeover go on where the other stopped.
import { WEBHOOK_STREAM_PREFIX, type WebhookEvent } from '@vault/domain';
import type { EventStore, LogPosition, Subscription } from '../../ports/event-store';
import type { WebhookReadModel } from '../../ports/webhooks';
import type { ProjectionWaiter } from '../../projections/projector';
import { WebhookRunner, type WebhookRunnerPorts, type WebhookRunnerSettings } from './webhook-runner';

/** How long a start waits for the read models to list every webhook created before it. */
const START_WAIT_MS = 10_000;
/** How often the live webhooks are listed again: a runner that stopped on a failure starts again from its checkpoint. */
const REFRESH_MS = 15_000;

export interface WebhookLag {
  /** Events of the log after the furthest-behind webhook's checkpoint, counted up to a cap. */
  events: number;
  /** Age of the oldest of them, in seconds; 0 when none. */
  seconds: number;
}

export class WebhookDispatcher {
  private readonly runners = new Map<string, WebhookRunner>();
  private subscription: Subscription | null = null;
  private running = false;
  private refresh: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly ports: WebhookRunnerPorts,
    private readonly settings: WebhookRunnerSettings,
    private readonly webhooks: Pick<WebhookReadModel, 'all'>,
    private readonly waiter: ProjectionWaiter,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  /**
   * Every webhook the read models list once they have passed the log's head, then every webhook change from that
   * head on (a webhook met twice keeps its one runner).
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const events: EventStore = this.ports.events;
    const head = await events.headPosition();
    if (head !== null) await this.waiter.waitFor(head, START_WAIT_MS);
    if (!this.running) return;
    this.subscription = events.subscribe({
      after: head,
      streamPrefixes: [WEBHOOK_STREAM_PREFIX],
      onEvents: async (changes) => {
        for (const change of changes) {
          const { tenant_id, id } = (change as unknown as WebhookEvent).data;
          if (change.type === 'WebhookDeleted') this.runners.get(runnerKey(tenant_id, id))?.stop();
          else this.ensure(tenant_id, id);
        }
      },
      onError: (error) => this.ports.observer.error('webhook changes are not followed; restarting', { error: error instanceof Error ? error.name : typeof error }),
    });
    await this.ensureAll();
    this.refresh = setInterval(() => void this.ensureAll().catch(() => undefined), REFRESH_MS);
    this.refresh.unref();
  }

  private async ensureAll(): Promise<void> {
    for (const webhook of await this.webhooks.all()) this.ensure(webhook.tenant_id, webhook.id);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.refresh) clearInterval(this.refresh);
    this.refresh = null;
    const runners = [...this.runners.values()];
    for (const runner of runners) runner.stop();
    this.runners.clear();
    // Outcomes already queued are written before the event log closes: a restart sends none of them again.
    await Promise.all(runners.map((runner) => runner.drained()));
    await this.subscription?.close();
    this.subscription = null;
  }

  /** How far behind the furthest-behind webhook is. */
  async lag(cap = 10_000): Promise<WebhookLag> {
    let worst: WebhookLag = { events: 0, seconds: 0 };
    for (const runner of this.runners.values()) {
      const from: LogPosition | null = runner.position;
      if (from === null) continue;
      const backlog = await this.ports.events.backlog(from, cap);
      const seconds = backlog.oldestTimestamp === null ? 0 : Math.max(0, (this.ports.clock.now().getTime() - Date.parse(backlog.oldestTimestamp)) / 1000);
      if (backlog.events > worst.events) worst = { events: backlog.events, seconds };
    }
    return worst;
  }

  private ensure(tenantId: string, id: string): void {
    if (!this.running) return;
    const key = runnerKey(tenantId, id);
    if (this.runners.has(key)) return;
    const runner = new WebhookRunner(tenantId, id, this.ports, this.settings, (stopped) => {
      if (this.runners.get(key) === stopped) this.runners.delete(key);
    });
    this.runners.set(key, runner);
    runner.start().catch((error: unknown) => {
      this.ports.observer.error('webhook delivery could not start; retried at the next change or restart', { webhook_id: id, error: error instanceof Error ? error.name : typeof error });
      runner.stop();
    });
  }
}

const runnerKey = (tenantId: string, id: string): string => `${tenantId}_${id}`;
