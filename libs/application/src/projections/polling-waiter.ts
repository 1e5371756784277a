// Read-your-writes when the projector runs in another process: poll the read model's checkpoint.
import { comparePositions, LogPosition } from '../ports/event-store';
import type { ProjectionStore } from '../ports/projection-store';
import type { ProjectionWaiter } from './projector';

const POLL_MS = 25;

export class PollingProjectionWaiter implements ProjectionWaiter {
  constructor(private readonly store: ProjectionStore) {}

  async waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const checkpoint = await this.store.checkpoint();
      if (checkpoint && comparePositions(checkpoint, position) >= 0) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
