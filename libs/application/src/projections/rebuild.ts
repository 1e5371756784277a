// Replays the whole log into a fresh read model and swaps it in; the live one is never edited.
import type { EventStore, LogPosition } from '../ports/event-store';
import type { RebuildableReadModel } from '../ports/projection-store';
import { applyBatch, ProjectionSet } from './apply-batch';

export interface RebuildProgress {
  /** Events applied so far. */
  events: number;
  /** Events in the log: exact at the end; before, `events` scaled by how far through the log the rebuild is. */
  total: number;
  /** How far through the log, 0–100. */
  percent: number;
  eventsPerSecond: number;
  etaSeconds: number | null;
}

export interface RebuildResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
}

export interface RebuildOptions {
  /** Events read and applied per batch (specs make it small, so that documents span batches). */
  batch?: number;
}

const BATCH = 5000;

export async function rebuildReadModel(
  events: EventStore,
  readModel: RebuildableReadModel,
  projections: ProjectionSet,
  onProgress: (progress: RebuildProgress) => void = () => undefined,
  options: RebuildOptions = {},
): Promise<RebuildResult> {
  const batch = options.batch ?? BATCH;
  const started = Date.now();
  const head = await events.headPosition();
  const target = await readModel.createRebuildTarget();
  let done = 0;
  try {
    let cursor: LogPosition | null = null;
    let lastReport = 0;
    for (;;) {
      const page = await events.readAll(cursor, batch);
      if (page.length === 0) break;
      const changes = await applyBatch(page, projections, target.store);
      cursor = page[page.length - 1].position;
      await target.store.commit(changes, cursor);
      done += page.length;
      if (Date.now() - lastReport >= 1000) {
        lastReport = Date.now();
        onProgress(progressOf(done, logFraction(cursor, head), (Date.now() - started) / 1000));
      }
    }
    onProgress(progressOf(done, 1, (Date.now() - started) / 1000));
    // Events appended after the head we read are applied by the live projector once it resumes from this checkpoint.
    await target.swapIn();
  } catch (error) {
    await target.discard();
    throw error;
  }
  const seconds = (Date.now() - started) / 1000;
  return { events: done, seconds, eventsPerSecond: seconds > 0 ? done / seconds : done };
}

/**
 * How far through the log `at` is, 0–1, with `head` the end. Positions are sequence numbers (embedded) or byte
 * offsets (EventStoreDB): either way a fraction of the log, never an event count, so it only divides positions.
 */
export function logFraction(at: LogPosition, head: LogPosition | null): number {
  if (head === null || head.commit <= 0n) return 1;
  return Math.min(1, Math.max(0, Number(at.commit) / Number(head.commit)));
}

/** Progress after `done` events, `fraction` of the way through the log, `seconds` in. */
export function progressOf(done: number, fraction: number, seconds: number): RebuildProgress {
  const elapsed = Math.max(seconds, 0.001);
  return {
    events: done,
    total: fraction > 0 ? Math.max(done, Math.round(done / fraction)) : done,
    percent: Math.floor(fraction * 100),
    eventsPerSecond: done / elapsed,
    // The rest of the log goes at the pace of the part read so far.
    etaSeconds: fraction > 0 ? (elapsed * (1 - fraction)) / fraction : null,
  };
}
