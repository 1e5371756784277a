// A delete answers once the key shredder has destroyed the data key the deletion names (a token's, a reactor's
// configuration's, a private formula's), so that nothing the key sealed can be opened after the answer.
import type { LogPosition } from '../ports/event-store';
import type { ProjectionWaiter } from '../projections/projector';
import { currentRequestContext } from '../ports/request-context';

export interface KeyShredding {
  waiter: ProjectionWaiter;
  timeoutMs: number;
}

/** Waits for the shredder to pass `position`; past the timeout the answer goes with X-Projection-Pending. */
export const awaitShredding = async (shredding: KeyShredding, position: LogPosition | null): Promise<void> => {
  if (position === null) return;
  const done = await shredding.waiter.waitFor(position, shredding.timeoutMs);
  const context = currentRequestContext();
  if (!done && context) context.projectionPending = true;
};
