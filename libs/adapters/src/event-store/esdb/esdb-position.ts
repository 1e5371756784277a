// Log positions between our port and the EventStoreDB client, and where a read event sits in the log.
import { START, type AllStreamResolvedEvent, type Position, type ResolvedEvent } from '@eventstore/db-client';
import { comparePositions, type LogPosition } from '@vault/application';

export const toLogPosition = (p: Position): LogPosition => ({ commit: p.commit, prepare: p.prepare });

export const toEsdbPosition = (p: LogPosition): Position => ({ commit: p.commit, prepare: p.prepare });

/** Where a read or subscription starts: `null` means the beginning of the log. */
export const startingAt = (after: LogPosition | null): Position | typeof START =>
  after === null ? START : toEsdbPosition(after);

/** True when `p` comes strictly after `after` (everything does when `after` is null). */
export const isAfter = (p: LogPosition, after: LogPosition | null): boolean =>
  after === null || comparePositions(p, after) > 0;

/**
 * The position of a read event. `$all` reads and subscriptions always carry `event.position`; stream reads carry it
 * only from server 22.6 on, before that only the commit position, which then stands in for both halves.
 */
export const positionOf = (resolved: ResolvedEvent | AllStreamResolvedEvent): LogPosition => {
  const exact = resolved.event?.position ?? resolved.link?.position;
  if (exact) return toLogPosition(exact);
  if (resolved.commitPosition !== undefined) {
    return { commit: resolved.commitPosition, prepare: resolved.commitPosition };
  }
  const id = resolved.event?.id ?? resolved.link?.id ?? 'unknown';
  throw new Error(`EventStoreDB returned event ${id} without a log position`);
};
