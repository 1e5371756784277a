// Follows the event log from the read model's checkpoint and applies projections, batch by batch.
// The checkpoint lives with the documents (ProjectionStore.commit), so a kill at any point resumes exactly where it stopped.
import {
  comparePositions,
  encodePosition,
  EventStore,
  EventStoreAccessDeniedError,
  LogPosition,
  RecordedEvent,
  samePosition,
  Subscription,
} from '../ports/event-store';
import { ReadModelGenerationChanged, type ProjectionStore } from '../ports/projection-store';
import type { Clock } from '../ports/system';
import { applyBatch, ProjectionSet } from './apply-batch';
import { measureLag, type ProjectionLag } from './projection-lag';

export interface ProjectorLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface ProjectionStatus {
  running: boolean;
  caughtUp: boolean;
  /** Why the projector stopped for good (the event store denied access); null while it runs or retries. */
  failure: string | null;
  checkpoint: string | null;
  head: string | null;
  /** How far behind the log it is: events after the checkpoint (counted up to a cap) and the oldest one's age. */
  lag: ProjectionLag;
}

/** Tells a writer when the read models have applied its events. */
export interface ProjectionWaiter {
  /** Resolves true once the read models are at or past `position`, false after `timeoutMs`. */
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean>;
}

const RETRY_DELAY_MS = 1000;

/** Settles a start (or restart) once: caught up, or stopped for good. */
type Started = (failure?: Error) => void;

/** The store's checkpoint is not where this projector left it: a rebuild was swapped in by another process. */
class ReadModelSwapped extends Error {}

export class Projector implements ProjectionWaiter {
  private subscription: Subscription | null = null;
  private position: LogPosition | null = null;
  private caughtUp = false;
  private stopped = true;
  private failure: EventStoreAccessDeniedError | null = null;
  private readonly waiters = new Set<{ position: LogPosition; resolve: (ok: boolean) => void }>();
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly store: ProjectionStore,
    private readonly projections: ProjectionSet,
    private readonly logger: ProjectorLogger,
    private readonly clock: Clock = { now: () => new Date() },
    /** Follow only these streams (the key shredder needs token streams alone); all of the vault's when absent. */
    private readonly streamPrefixes?: string[],
  ) {}

  /**
   * Starts following the log; resolves once it has caught up the first time. Rejects with an
   * EventStoreAccessDeniedError when the event store refuses its credentials: it then stops for good.
   */
  start(): Promise<void> {
    this.stopped = false;
    this.failure = null;
    return new Promise<void>((resolve, reject) => this.follow((failure) => (failure ? reject(failure) : resolve())));
  }

  /** Why the projector stopped for good (the event store denied access), or null; no I/O, unlike status(). */
  get failureReason(): string | null {
    return this.failure?.message ?? null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.subscription?.close();
    this.subscription = null;
    for (const waiter of [...this.waiters]) waiter.resolve(false);
  }

  /**
   * Pauses, runs `swap` (e.g. reopen the read model a rebuild swapped in), and resumes from the store's checkpoint.
   * Resolves once caught up again, or once stopped for good (logged, and in `status().failure`).
   */
  async restart(swap: () => Promise<void> = async () => undefined): Promise<void> {
    await this.subscription?.close();
    this.subscription = null;
    await swap();
    if (!this.stopped) await new Promise<void>((resolve) => this.follow(() => resolve()));
  }

  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    if (this.position && comparePositions(this.position, position) >= 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (ok: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /**
   * Where the projector stands. Reading the log's head and lag needs the event store too: when it refuses them for the
   * credentials (access revoked while running), that refusal is the status's `failure` rather than a rejection, so
   * the health check and the projector app see why and can stop.
   */
  async status(): Promise<ProjectionStatus> {
    const checkpoint = this.position;
    let head: LogPosition | null;
    let lag: ProjectionLag;
    try {
      [head, lag] = await Promise.all([this.events.headPosition(), measureLag(this.events, checkpoint, this.clock.now())]);
    } catch (error) {
      if (!(error instanceof EventStoreAccessDeniedError)) throw error;
      return {
        running: false,
        caughtUp: this.caughtUp,
        failure: (this.failure ?? error).message,
        checkpoint: checkpoint && encodePosition(checkpoint),
        head: null,
        lag: { events: 0, eventsCapped: true, seconds: 0 },
      };
    }
    return {
      running: !this.stopped && this.subscription !== null,
      caughtUp: this.caughtUp,
      failure: this.failure?.message ?? null,
      checkpoint: checkpoint && encodePosition(checkpoint),
      head: head && encodePosition(head),
      lag,
    };
  }

  private follow(onCaughtUp: Started): void {
    void (async () => {
      try {
        this.position = await this.store.checkpoint();
      } catch (error) {
        this.logger.error('projector could not read its checkpoint', { error: String(error) });
        this.scheduleRetry(onCaughtUp);
        return;
      }
      if (this.stopped) return;
      this.subscription = this.events.subscribe({
        after: this.position,
        streamPrefixes: this.streamPrefixes,
        onEvents: (events) => this.handle(events),
        onCaughtUp: () => {
          this.caughtUp = true;
          onCaughtUp();
        },
        onError: (error) => {
          this.subscription = null;
          if (error instanceof EventStoreAccessDeniedError) {
            this.fail(error, onCaughtUp);
            return;
          }
          // Noticed here before a batch, or reported by the store's commit (Meilisearch) after a swap under it.
          if (error instanceof ReadModelSwapped || error instanceof ReadModelGenerationChanged) {
            this.logger.info('the read model was swapped by a rebuild; resuming from its checkpoint');
            this.follow(onCaughtUp);
            return;
          }
          this.logger.error('projector stopped on an error; retrying from its checkpoint', { error: String(error) });
          this.subscription = null;
          this.scheduleRetry(onCaughtUp);
        },
      });
    })();
  }

  private scheduleRetry(onCaughtUp: Started): void {
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => this.follow(onCaughtUp), RETRY_DELAY_MS);
  }

  /** Credentials do not get better by retrying: stop, say what to change, and let waiters and the starter know. */
  private fail(error: EventStoreAccessDeniedError, started: Started): void {
    this.stopped = true;
    this.failure = error;
    this.logger.error(
      'projector stopped for good: the event store denied access; connect as a user allowed to read $all (a member of $ops or $admins) and restart',
      { error: error.message, fatal: true },
    );
    for (const waiter of [...this.waiters]) waiter.resolve(false);
    started(error);
  }

  private async handle(events: RecordedEvent[]): Promise<void> {
    const last = events[events.length - 1].position;
    const stored = await this.store.checkpoint();
    if (!samePosition(stored, this.position)) throw new ReadModelSwapped();
    const changes = await applyBatch(events, this.projections, this.store);
    await this.store.commit(changes, last);
    this.position = last;
    for (const waiter of [...this.waiters]) {
      if (comparePositions(last, waiter.position) >= 0) waiter.resolve(true);
    }
  }
}
