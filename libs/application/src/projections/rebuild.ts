// Replays the whole log into a fresh read model and swaps it in; the live one is never edited.
import type { EventStore, LogPosition } from '../ports/event-store';
import type { RebuildableReadModel } from '../ports/projection-store';
import { applyBatch, ProjectionSet } from './apply-batch';

export interface RebuildProgress {
  events: number;
  total: number;
  eventsPerSecond: number;
  etaSeconds: number | null;
}

export interface RebuildResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

const BATCH = 5000;

export async function rebuildReadModel(
  events: EventStore,
  readModel: RebuildableReadModel,
  projections: ProjectionSet,
  onProgress: (progress: RebuildProgress) => void = () => undefined,
): Promise<RebuildResult> {
  const started = Date.now();
  const head = await events.headPosition();
  const total = head === null ? 0 : Number(head.commit);
  const target = await readModel.createRebuildTarget();
  let done = 0;
  try {
    let cursor: LogPosition | null = null;
    let lastReport = 0;
    for (;;) {
      const page = await events.readAll(cursor, BATCH);
      if (page.length === 0) break;
      const changes = await applyBatch(page, projections, target.store);
      cursor = page[page.length - 1].position;
      await target.store.commit(changes, cursor);
      done += page.length;
      if (Date.now() - lastReport >= 1000) {
        lastReport = Date.now();
        onProgress(progressOf(done, Math.max(total, done), started));
      }
    }
    onProgress(progressOf(done, Math.max(total, done), started));
    // Events appended after the head we read are applied by the live projector once it resumes from this checkpoint.
    await target.swapIn();
  } catch (error) {
    await target.discard();
    throw error;
  }
  const seconds = (Date.now() - started) / 1000;
  return { events: done, seconds, eventsPerSecond: seconds > 0 ? done / seconds : done };
}

function progressOf(done: number, total: number, started: number): RebuildProgress {
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  const rate = done / seconds;
  return {
    events: done,
    total,
    eventsPerSecond: rate,
    etaSeconds: rate > 0 ? Math.max(0, (total - done) / rate) : null,
  };
}
