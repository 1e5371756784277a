// How a subscription gathers the events it hands over at once. Live, it takes what the client has already buffered
// (small batches, low latency). Catching up, it keeps reading while events keep arriving, so a long replay reaches
// the read model in large batches (one Meilisearch task per index per batch, not per 30 events).
import type { Readable } from 'node:stream';

export interface BatchLimits {
  /** At most this many events in one batch. */
  max: number;
  /** Wait this long for more to arrive before handing over what there is; 0: take only what is buffered. */
  gatherMs: number;
}

/** Live: what is buffered, up to 100. */
export const LIVE_BATCH: BatchLimits = { max: 100, gatherMs: 0 };
/** Catching up: up to 2,000 events, as long as the next one arrives within 5 ms. */
export const CATCH_UP_BATCH: BatchLimits = { max: 2_000, gatherMs: 5 };

/**
 * `first` plus whatever follows it on `stream` within the limits. Reads with `read()` in paused mode, as the
 * `for await` loop that produced `first` does, so nothing is taken twice or lost: an event that arrives after the
 * batch is handed over stays buffered for the loop.
 */
export async function gatherBatch<T>(stream: Readable, first: T, limits: BatchLimits): Promise<T[]> {
  const batch: T[] = [first];
  while (batch.length < limits.max) {
    const next = stream.read() as T | null;
    if (next !== null) {
      batch.push(next);
      continue;
    }
    if (limits.gatherMs <= 0 || stream.readableEnded || stream.destroyed || !(await readableWithin(stream, limits.gatherMs))) break;
  }
  return batch;
}

/** Resolves true when the stream has something to read (or ends) within `ms`, false after it. */
function readableWithin(stream: Readable, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (readable: boolean) => {
      clearTimeout(timer);
      stream.off('readable', onReadable);
      stream.off('close', onClose);
      resolve(readable);
    };
    const onReadable = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), ms);
    stream.on('readable', onReadable);
    stream.on('close', onClose);
  });
}
