// Webhook delivery in a process of the vault: the dispatcher runs while this process projects (it holds the projector
// lease, or it is the projector app), and stops when the lease passes to another process. The hub passes each attempt
// to the metrics and each failure to the log (ids and kinds only: never a body, a URL or a secret).
import type { DeliveryObserver, DeliveryOutcome, Projector, WebhookDispatcher } from '@vault/application';
import { LeasedProjector } from '@vault/application';
import type { JsonLogger } from './json-logger';

export class WebhookDeliveryHub implements DeliveryObserver {
  private readonly listeners: Array<(outcome: DeliveryOutcome) => void> = [];

  constructor(private readonly logger: JsonLogger) {}

  attempted(outcome: DeliveryOutcome): void {
    for (const listener of this.listeners) {
      try {
        listener(outcome);
      } catch {
        /* a lost count */
      }
    }
  }

  error(message: string, fields?: Record<string, unknown>): void {
    this.logger.error(`webhooks: ${message}`, fields);
  }

  onAttempt(listener: (outcome: DeliveryOutcome) => void): void {
    this.listeners.push(listener);
  }
}

/** How often a process checks whether it (still) holds the projector lease, and so delivers. */
const GATE_MS = 1000;

export class WebhookDelivery {
  private timer: ReturnType<typeof setInterval> | null = null;
  private switching: Promise<void> = Promise.resolve();

  constructor(
    readonly dispatcher: WebhookDispatcher,
    readonly hub: WebhookDeliveryHub,
    private readonly projector: Projector,
    private readonly onClose: () => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.gate(), GATE_MS);
    this.timer.unref();
    this.gate();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.switching;
    await this.dispatcher.stop();
    this.onClose();
  }

  private gate(): void {
    const projecting = this.projector instanceof LeasedProjector ? this.projector.isProjecting : true;
    if (projecting === this.dispatcher.isRunning) return;
    this.switching = this.switching.then(() =>
      (projecting ? this.dispatcher.start() : this.dispatcher.stop()).catch((error: unknown) => {
        this.hub.error('webhook delivery could not switch; retried in a second', { error: error instanceof Error ? error.name : typeof error });
        void this.dispatcher.stop();
      }),
    );
  }
}
