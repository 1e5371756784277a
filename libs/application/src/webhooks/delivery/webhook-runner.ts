// One webhook's deliveries: an event-stream consumer of its own. It follows the log (its tenant's entity streams only)
// from the webhook's checkpoint, and delivers each event the webhook was subscribed to at that point of the log, one
// at a time and in log order, retrying a failing one with backoff until the retry window has passed. Every attempt's
// outcome is an event of the webhook's delivery stream, appended at the revision this runner last saw: the checkpoint
// survives a crash, and a second process that took over the webhook cannot record the same outcome again.
import {
  checkDestination,
  deliveryStream,
  DomainError,
  notificationOf,
  NOTIFIED_STREAM_PREFIXES,
  retryDelayMs,
  WEBHOOK_HOSTS,
  webhookBody,
  webhookStream,
  type DeliveryState,
  type DestinationHosts,
  type Notification,
  type WebhookDeliveryRecordedData,
  type WebhookEvent,
  type WebhookRecord,
} from '@vault/domain';
import { comparePositions, decodePosition, encodePosition, lastEventOf, WrongExpectedRevisionError, type EventStore, type ExpectedRevision, type LogPosition, type RecordedEvent, type Subscription } from '../../ports/event-store';
import type { ProxyEgress } from '../../ports/proxy-egress';
import type { Clock } from '../../ports/system';
import type { TokenCrypto } from '../../ports/token-crypto';
import type { WebhookCrypto } from '../../ports/webhooks';
import { openWebhookSecret } from '../sealing/webhook-secret';

export interface DeliveryOutcome {
  state: DeliveryState;
  /** The receiver's status; null when none came. */
  status: number | null;
  /** From the event's append to this attempt. */
  lagSeconds: number;
}

export interface DeliveryObserver {
  attempted(outcome: DeliveryOutcome): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface WebhookRunnerSettings {
  hosts: DestinationHosts;
  /** After the first attempt, how long a failing delivery is retried before it is `failed` (24 h by default). */
  retryWindowMs: number;
}

export interface WebhookRunnerPorts {
  events: EventStore;
  /** Where outcomes are appended when not straight to `events`: a group commit shared by every runner (embedded log). */
  appender?: Pick<EventStore, 'append'>;
  egress: ProxyEgress;
  crypto: TokenCrypto;
  webhookCrypto: WebhookCrypto;
  clock: Clock;
  observer: DeliveryObserver;
}

/** A delivery that a crash or a restart interrupted between two attempts. */
interface Resumed {
  position: string;
  attempts: number;
  firstAttemptAt: string;
  nextAttemptAt: string | null;
}

const APPEND_RETRY_MS = 1000;
/**
 * Outcomes a runner may have sent past without their record being durable yet: the next event is sent while the
 * previous outcomes are appended (one append for all that are waiting), so a crash sends at most this many again.
 */
export const MAX_UNRECORDED_OUTCOMES = 16;

export class WebhookRunner {
  private subscription: Subscription | null = null;
  private stopped = false;
  private readonly wakers = new Set<() => void>();
  /** Outcomes waiting for the next append, in delivery order; and how many are not durable yet (waiting or appending). */
  private queued: WebhookDeliveryRecordedData[] = [];
  private unrecorded = 0;
  private flushing: Promise<void> | null = null;
  /** The webhook as it was at the checkpoint: its own stream is followed with the events, in log order. */
  private setting: WebhookRecord | null = null;
  private revision: ExpectedRevision = 'no_stream';
  /** The last event this runner is done with (delivered, failed or not for it). */
  private checkpoint: LogPosition | null = null;
  private resumed: Resumed | null = null;

  constructor(
    readonly tenantId: string,
    readonly webhookId: string,
    private readonly ports: WebhookRunnerPorts,
    private readonly options: WebhookRunnerSettings,
    private readonly onStopped: (runner: WebhookRunner) => void,
  ) {}

  /** Reads the webhook's settings and where its deliveries stopped, then follows the log from there. */
  async start(): Promise<void> {
    const own = await this.ports.events.readStream(this.ownStream);
    const created = own[0];
    if (!created || latestSetting(own) === null) return this.stop();
    this.checkpoint = created.position;
    const last = await lastEventOf(this.ports.events, deliveryStream(this.tenantId, this.webhookId));
    if (last !== null) {
      this.revision = last.revision;
      const recorded = last.data as WebhookDeliveryRecordedData;
      if (recorded.state === 'pending') {
        this.resumed = { position: recorded.position, attempts: recorded.attempts, firstAttemptAt: recorded.first_attempt_at, nextAttemptAt: recorded.next_attempt_at };
        this.checkpoint = recorded.resume_after === null ? created.position : decodePosition(recorded.resume_after);
      } else {
        this.checkpoint = decodePosition(recorded.position);
      }
    }
    if (this.stopped) return;
    this.setting = settingAt(own, this.checkpoint);
    this.subscription = this.ports.events.subscribe({
      after: this.checkpoint,
      // The webhook's own stream too: a change of its settings comes in log order with the events it applies to.
      streamPrefixes: [...NOTIFIED_STREAM_PREFIXES, this.ownStream],
      onEvents: (events) => this.handle(events),
      onError: (error) => {
        this.ports.observer.error('webhook delivery stopped on a failure; it resumes from its checkpoint', { webhook_id: this.webhookId, error: nameOf(error) });
        this.stop();
      },
    });
  }

  /** Stops at once: a wait between attempts ends and nothing more is sent; outcomes already queued are still appended. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const wake of [...this.wakers]) wake();
    const subscription = this.subscription;
    this.subscription = null;
    // Not awaited: the subscription's close waits for the handler, which may be the caller.
    void subscription?.close().catch(() => undefined);
    this.onStopped(this);
  }

  /** Resolves once every outcome recorded so far is durable (or could not be: the process goes on without it). */
  async drained(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** The position this runner is done with; null before it started. */
  get position(): LogPosition | null {
    return this.checkpoint;
  }

  private get ownStream(): string {
    return webhookStream(this.tenantId, this.webhookId);
  }

  private async handle(events: RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (this.stopped) return;
      if (event.streamId === this.ownStream) {
        this.setting = evolveSetting(this.setting, event);
        if (this.setting === null) return this.stop();
      } else {
        const notification = notificationOf(event, event.metadata);
        const webhook = this.setting;
        if (notification !== null && notification.tenantId === this.tenantId && webhook !== null && webhook.enabled && webhook.events.includes(notification.type)) {
          await this.deliver(event, notification);
          if (this.stopped) return;
        }
      }
      this.checkpoint = event.position;
    }
  }

  private async deliver(event: RecordedEvent, notification: Notification): Promise<void> {
    const position = encodePosition(event.position);
    const resumeAfter = this.checkpoint === null ? null : encodePosition(this.checkpoint);
    const eventId = this.ports.webhookCrypto.eventId(event.streamId, event.revision);
    const body = JSON.stringify(webhookBody(eventId, { ...notification, tokenType: await this.tokenTypeOf(event, notification) }));
    const resumed = this.resumed?.position === position ? this.resumed : null;
    this.resumed = null;
    let attempts = resumed?.attempts ?? 0;
    const firstAttemptAt = resumed ? Date.parse(resumed.firstAttemptAt) : this.ports.clock.now().getTime();
    if (resumed?.nextAttemptAt) await this.sleep(Date.parse(resumed.nextAttemptAt) - this.ports.clock.now().getTime());

    while (!this.stopped) {
      // A retry goes where the webhook points now (its URL may have been fixed meanwhile), with its secret.
      const webhook = attempts === 0 ? this.setting : latestSetting(await this.ports.events.readStream(this.ownStream));
      if (webhook === null) return this.stop();
      await this.withAtMostUnrecorded(MAX_UNRECORDED_OUTCOMES - 1);
      if (this.stopped) return;
      const status = await this.attempt(webhook, eventId, notification, body);
      if (this.stopped) return;
      attempts += 1;
      const now = this.ports.clock.now();
      const state: DeliveryState = status !== null && status >= 200 && status < 300 ? 'delivered' : now.getTime() - firstAttemptAt >= this.options.retryWindowMs ? 'failed' : 'pending';
      const delay = retryDelayMs(attempts);
      this.record({
        webhook_id: this.webhookId,
        tenant_id: this.tenantId,
        event_id: eventId,
        event_type: notification.type,
        position,
        resume_after: resumeAfter,
        state,
        attempts,
        last_status: status,
        first_attempt_at: new Date(firstAttemptAt).toISOString(),
        attempted_at: now.toISOString(),
        next_attempt_at: state === 'pending' ? new Date(now.getTime() + delay).toISOString() : null,
      });
      this.ports.observer.attempted({ state, status, lagSeconds: Math.max(0, (now.getTime() - Date.parse(notification.createdAt)) / 1000) });
      if (state !== 'pending') return;
      await this.sleep(delay);
    }
  }

  /** One POST: the receiver's status, or null (no answer in time, refused, or the host no longer allowed). */
  private async attempt(webhook: WebhookRecord, eventId: string, notification: Notification, body: string): Promise<number | null> {
    const secret = await this.secretOf(webhook);
    if (secret === null) return null;
    const destination = checkDestination(webhook.url, 'url', this.options.hosts, WEBHOOK_HOSTS);
    if ('problem' in destination) return null;
    const timestamp = Math.floor(this.ports.clock.now().getTime() / 1000);
    const signature = this.ports.webhookCrypto.sign(secret, `${timestamp}.${body}`);
    const answer = await this.ports.egress.send({
      url: destination.url,
      method: 'POST',
      headers: [
        ['content-type', 'application/json'],
        ['user-agent', 'selfhosted-token-vault-webhooks/1'],
        ['svc-webhook-id', eventId],
        ['svc-webhook-event', notification.type],
        ['svc-webhook-signature', `t=${timestamp},v1=${signature}`],
      ],
      body: Buffer.from(body, 'utf8'),
    });
    return answer.failed === null ? answer.status : null;
  }

  /**
   * The signing secret, opened for each attempt: once the webhook's delete (or its tenant's) has destroyed the key, no
   * attempt is made, whether or not this runner has read the delete yet. A secret that no longer opens stops the runner.
   */
  private async secretOf(webhook: WebhookRecord): Promise<string | null> {
    try {
      return await openWebhookSecret(this.ports.crypto, webhook);
    } catch (error) {
      if (error instanceof DomainError) {
        this.stop();
        return null;
      }
      throw error;
    }
  }

  /** A token event's token type: in a create; for an update or delete, from the token's create (types never change). */
  private async tokenTypeOf(event: RecordedEvent, notification: Notification): Promise<string | null> {
    if (!notification.type.startsWith('token.') || notification.tokenType !== null) return notification.tokenType;
    const first = (await this.ports.events.readStream(event.streamId))[0];
    const type = (first?.data as { type?: unknown } | undefined)?.type;
    return typeof type === 'string' ? type : null;
  }

  /** Queues an outcome: appended, in order, with every other waiting one, at the revision last seen. */
  private record(data: WebhookDeliveryRecordedData): void {
    this.queued.push(data);
    this.unrecorded += 1;
    this.flushing ??= this.flush().finally(() => (this.flushing = null));
  }

  private async withAtMostUnrecorded(count: number): Promise<void> {
    while (this.unrecorded > count && this.flushing) await this.flushing;
  }

  /** Appends what is queued, one append at a time; a refused append is retried while this runner runs. */
  private async flush(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued;
      this.queued = [];
      try {
        const result = await (this.ports.appender ?? this.ports.events).append(
          deliveryStream(this.tenantId, this.webhookId),
          batch.map((data) => ({
            type: 'WebhookDeliveryRecorded',
            data,
            metadata: { tenant_id: this.tenantId, actor: { type: 'system' as const, id: 'webhooks' }, timestamp: data.attempted_at, correlation_id: data.event_id },
          })),
          this.revision,
        );
        this.revision = result.nextExpectedRevision;
        this.unrecorded -= batch.length;
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError || this.stopped) {
          // Another process records this webhook's deliveries now (it goes on from the outcomes it recorded), or this
          // runner is stopping on a failing store: the outcomes not recorded are sent again by whoever goes on.
          if (error instanceof WrongExpectedRevisionError) this.ports.observer.error('webhook deliveries recorded by another process; this one stops them', { webhook_id: this.webhookId });
          this.queued = [];
          this.unrecorded = 0;
          this.stop();
          return;
        }
        this.ports.observer.error('webhook delivery outcomes not recorded; retrying', { webhook_id: this.webhookId, error: nameOf(error) });
        this.queued = [...batch, ...this.queued];
        await this.sleep(APPEND_RETRY_MS);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0 || this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }
}

const nameOf = (error: unknown): string => (error instanceof Error ? error.name : typeof error);

/** The webhook after `event` of its stream: null once deleted. */
const evolveSetting = (current: WebhookRecord | null, recorded: RecordedEvent): WebhookRecord | null => {
  const event = recorded as unknown as WebhookEvent;
  if (event.type === 'WebhookDeleted') return null;
  if (event.type === 'WebhookCreated') {
    const { created_by, created_at, ...fields } = event.data;
    return { ...fields, created_by, created_at, modified_by: null, modified_at: null };
  }
  if (event.type === 'WebhookUpdated' && current !== null) {
    const { modified_by, modified_at, ...fields } = event.data;
    return { ...fields, created_by: current.created_by, created_at: current.created_at, modified_by, modified_at };
  }
  return current;
};

/** The webhook as its stream left it at `position` (every event at or before it); null before its create or once deleted. */
const settingAt = (stream: RecordedEvent[], position: LogPosition | null): WebhookRecord | null =>
  stream.reduce<WebhookRecord | null>((current, event) => (position === null || comparePositions(event.position, position) <= 0 ? evolveSetting(current, event) : current), null);

/** The webhook as its whole stream leaves it. */
const latestSetting = (stream: RecordedEvent[]): WebhookRecord | null => settingAt(stream, null);

