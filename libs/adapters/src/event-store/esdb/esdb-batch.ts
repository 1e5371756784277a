// How a subscription gathers the events it hands over at once. Live, it takes what the client has already buffered
// (small batches, low latency). Catching up, it keeps reading while events keep arriving, so a long replay reaches
// the read model in large batches (one Meilisearch task per index per batch, not per 30 events).
import type { Readable } from 'node:stream';

export interface BatchLimits {
  /** At most this many events in one batch. */
  max: number;
  /** Stop gathering once the events' sizes (as `sizeOf` tells them) add up to this; tokens carry ciphertext. */
  maxBytes: number;
  /** Wait this long for more to arrive before handing over what there is; 0: take only what is buffered. */
  gatherMs: number;
}

/** Live: what is buffered, up to 100. */
export const LIVE_BATCH: BatchLimits = { max: 100, maxBytes: Number.POSITIVE_INFINITY, gatherMs: 0 };
/** Catching up: up to 2,000 events or 32 MiB, as long as the next one arrives within 5 ms. */
export const CATCH_UP_BATCH: BatchLimits = { max: 2_000, maxBytes: 32 * 1024 * 1024, gatherMs: 5 };

/**
 * `first` plus whatever follows it on `stream` within the limits. Reads with `read()` in paused mode, as the
 * `for await` loop that produced `first` does, so nothing is taken twice or lost: an event that arrives after the
 * batch is handed over stays buffered for the loop.
 */
export async function gatherBatch<T>(
  stream: Readable,
  first: T,
  limits: BatchLimits,
  sizeOf: (item: T) => number = () => 0,
): Promise<T[]> {
  const batch: T[] = [first];
  let bytes = sizeOf(first);
  while (batch.length < limits.max && bytes < limits.maxBytes) {
    const next = stream.read() as T | null;
    if (next !== null) {
      batch.push(next);
      bytes += sizeOf(next);
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
