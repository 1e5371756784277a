// How far a read model is behind the log, in events and in seconds, and whether that is close enough to serve.
import type { Backlog, EventStore, LogPosition } from '../ports/event-store';

export interface ProjectionLag {
  /** Events not applied yet, counted up to LAG_COUNT_CAP. */
  events: number;
  /** True when more than `events` are pending: counting stopped at the cap. */
  eventsCapped: boolean;
  /** Age of the oldest event not applied yet; 0 when none is pending. */
  seconds: number;
}

/** Ready while at most this many events, and none older than this, wait to be applied. */
export const READY_LIMITS = { maxEvents: 1000, maxSeconds: 30 } as const;

/** Counting further than the readiness limit decides nothing, and on EventStoreDB every counted event is read. */
export const LAG_COUNT_CAP = READY_LIMITS.maxEvents;

/** The lag a backlog amounts to at `now`. A timestamp ahead of `now` (another host's clock) counts as no delay. */
export const lagOf = (backlog: Backlog, now: Date): ProjectionLag => {
  const oldest = backlog.oldestTimestamp === null ? NaN : Date.parse(backlog.oldestTimestamp);
  const ageMs = Number.isFinite(oldest) ? Math.max(0, now.getTime() - oldest) : 0;
  return { events: backlog.events, eventsCapped: backlog.capped, seconds: Math.round(ageMs) / 1000 };
};

/** The lag of a read model whose checkpoint is `checkpoint`. */
export const measureLag = async (events: EventStore, checkpoint: LogPosition | null, now: Date): Promise<ProjectionLag> =>
  lagOf(await events.backlog(checkpoint, LAG_COUNT_CAP), now);

export interface ReadinessInput {
  /** Whether this process's projector has reached the end of the log once; null when another process projects. */
  caughtUpOnce: boolean | null;
  /** Why the projector stopped for good, if it did. */
  failure: string | null;
  lag: ProjectionLag;
}

export type Readiness = { ready: true } | { ready: false; reason: string };

export const readinessOf = ({ caughtUpOnce, failure, lag }: ReadinessInput): Readiness => {
  const limits = READY_LIMITS;
  if (failure !== null) return { ready: false, reason: `the projector stopped: ${failure}` };
  if (caughtUpOnce === false) return { ready: false, reason: 'the projector has not caught up with the log yet' };
  if (lag.eventsCapped || lag.events > limits.maxEvents) {
    return { ready: false, reason: `more than ${limits.maxEvents} events wait to be applied` };
  }
  if (lag.seconds > limits.maxSeconds) {
    return { ready: false, reason: `the oldest event waiting to be applied is over ${limits.maxSeconds} s old` };
  }
  return { ready: true };
};
