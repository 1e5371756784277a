// Several processes on one read model: the one holding the projector lease projects; every other one follows (its
// writes wait by polling the read model's checkpoint) and takes the lease over, and projecting from the read model's
// checkpoint, once the holder stops renewing it (killed, frozen, shut down).
import { comparePositions, encodePosition, type EventStore, type LogPosition } from '../ports/event-store';
import type { ProjectionStore } from '../ports/projection-store';
import type { ProjectorLease } from '../ports/projector-lease';
import type { Clock } from '../ports/system';
import type { ProjectionSet } from './apply-batch';
import { PollingProjectionWaiter } from './polling-waiter';
import { measureLag } from './projection-lag';
import { Projector, type ProjectionStatus, type ProjectionWaiter, type ProjectorLogger } from './projector';

/** How often the lease is renewed by its holder, and asked for by the others. */
export const LEASE_RENEW_MS = 1000;

/** A commit refused because this process's lease may have passed to another process. */
export class ProjectorLeaseLost extends Error {
  constructor() {
    super('this process no longer holds the projector lease');
    this.name = 'ProjectorLeaseLost';
  }
}

/** The read model as the projector sees it: every commit first checks that the lease is still safely held. */
class LeaseFencedStore implements ProjectionStore {
  onLost: () => void = () => undefined;
  constructor(
    private readonly inner: ProjectionStore,
    private readonly lease: ProjectorLease,
  ) {}

  checkpoint: ProjectionStore['checkpoint'] = () => this.inner.checkpoint();
  load: ProjectionStore['load'] = (collection, ids) => this.inner.load(collection, ids);
  commit: ProjectionStore['commit'] = (changes, checkpoint) => {
    // No await between the check and the commit: the embedded store commits synchronously within this call.
    if (!this.lease.holds()) {
      this.onLost();
      return Promise.reject(new ProjectorLeaseLost());
    }
    return this.inner.commit(changes, checkpoint);
  };
}

type Role = 'idle' | 'projecting' | 'following';

export class LeasedProjector extends Projector {
  private readonly follower: ProjectionWaiter;
  private running = false;
  private role: Role = 'idle';
  private timer: ReturnType<typeof setInterval> | null = null;
  private ticking: Promise<void> | null = null;
  /** The first catch-up of the current projecting spell (start() awaits it when it began there). */
  private caughtUpNow: Promise<void> | null = null;
  /** Settles caughtUpNow when the spell ends before catching up (a stopped projector never reports it). */
  private endSpell: (() => void) | null = null;
  /** Following: the log's head when this process began to follow; reached once by the read model → caught up once. */
  private followFrom: LogPosition | null = null;
  private followedOnce = false;

  constructor(
    private readonly log: EventStore,
    private readonly readModel: ProjectionStore,
    projections: ProjectionSet,
    private readonly say: ProjectorLogger,
    private readonly lease: ProjectorLease,
    private readonly time: Clock = { now: () => new Date() },
    private readonly renewMs = LEASE_RENEW_MS,
  ) {
    const fence = new LeaseFencedStore(readModel, lease);
    super(log, fence, projections, say, time);
    fence.onLost = () => void this.stopProjecting('its lease ran out before a commit');
    this.follower = new PollingProjectionWaiter(readModel);
  }

  /** The role now (a getter, so that a check after an await is not narrowed by one before it). */
  private get isFollowing(): boolean {
    return this.role === 'following';
  }

  /** Whether this process is the one projecting now. */
  get isProjecting(): boolean {
    return this.role === 'projecting';
  }

  /**
   * Takes part in the election: resolves once caught up when this process took the lease, at once when another holds
   * it (this process then follows, and asks for the lease again every renewal), and as soon as it loses the lease
   * during its first catch-up (a start-up that held the event loop past the lease's safe term): it then follows too.
   */
  override async start(): Promise<void> {
    this.running = true;
    this.timer = setInterval(() => void this.tick(), this.renewMs);
    // The app's server (or the projector app's own timer) keeps the process alive, not the election.
    this.timer.unref();
    await this.tick();
    if (this.caughtUpNow) await this.caughtUpNow;
  }

  override async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.ticking;
    this.role = 'idle';
    this.endSpell?.();
    await super.stop();
    await this.lease.release();
  }

  override async waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    if (this.role !== 'projecting') return this.follower.waitFor(position, timeoutMs);
    const started = this.time.now().getTime();
    if (await super.waitFor(position, timeoutMs)) return true;
    // The lease passed to another process during the wait: its commits may still come in time.
    const left = timeoutMs - (this.time.now().getTime() - started);
    return this.isFollowing && left > 0 ? this.follower.waitFor(position, left) : false;
  }

  /** Projecting: the projector's own status. Following: the read model's checkpoint against the log. */
  override async status(): Promise<ProjectionStatus> {
    if (this.role === 'projecting') return super.status();
    const checkpoint = await this.readModel.checkpoint();
    const [head, lag] = await Promise.all([this.log.headPosition(), measureLag(this.log, checkpoint, this.time.now())]);
    if (!this.followedOnce && (this.followFrom === null || (checkpoint !== null && comparePositions(checkpoint, this.followFrom) >= 0))) {
      this.followedOnce = true;
    }
    return {
      running: false,
      caughtUp: this.followedOnce,
      failure: this.failureReason,
      checkpoint: checkpoint && encodePosition(checkpoint),
      head: head && encodePosition(head),
      lag,
    };
  }

  /** One renewal (holder) or bid (follower); serialised, so that a slow one is never overtaken by the next. */
  private tick(): Promise<void> {
    this.ticking ??= this.renewOrBid().finally(() => (this.ticking = null));
    return this.ticking;
  }

  private async renewOrBid(): Promise<void> {
    // Stopped for good (the event store refused access): leave the lease to a process that may do better.
    if (this.failureReason) return this.lease.release();
    let held: boolean;
    try {
      held = await this.lease.acquire();
    } catch (error) {
      this.say.error('projector lease could not be renewed or taken', { error: error instanceof Error ? error.name : 'unknown' });
      held = false;
    }
    if (!this.running) return;
    if (held && this.role !== 'projecting') this.startProjecting();
    else if (!held && this.role === 'projecting') await this.stopProjecting('another process holds the lease');
    else if (!held && this.role === 'idle') {
      this.say.info('another process holds the projector lease: following its commits');
      await this.startFollowing();
    }
  }

  private startProjecting(): void {
    this.role = 'projecting';
    this.say.info('projector lease taken: projecting from the read model checkpoint');
    this.caughtUpNow = new Promise<void>((resolve, reject) => {
      this.endSpell = resolve;
      super.start().then(resolve, (error: unknown) => {
        // Stopped for good (the event store refused access): failureReason and status() say why.
        if (this.role === 'projecting') this.role = 'idle';
        reject(error);
      });
    });
    // A spell that began in a renewal has no one awaiting its catch-up; its failure is in status().
    this.caughtUpNow.catch(() => undefined);
  }

  private async stopProjecting(why: string): Promise<void> {
    if (this.role !== 'projecting') return;
    this.role = 'following';
    this.caughtUpNow = null;
    this.endSpell?.();
    this.say.info('projector lease lost: following the read model until it can be taken again', { reason: why });
    await super.stop();
    await this.startFollowing();
  }

  private async startFollowing(): Promise<void> {
    this.role = 'following';
    this.followedOnce = false;
    this.followFrom = await this.log.headPosition().catch(() => null);
    if (this.followFrom === null) this.followedOnce = true;
  }
}
