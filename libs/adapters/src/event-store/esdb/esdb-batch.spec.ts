// gatherBatch on a real object-mode stream (the client's subscription is a stream.Transform): batches stay in order,
// take nothing twice, lose nothing, and grow large only while events keep arriving.
import { PassThrough } from 'node:stream';
import { CATCH_UP_BATCH, gatherBatch, LIVE_BATCH } from './esdb-batch';

const objects = () => new PassThrough({ objectMode: true, highWaterMark: 16 });

/** Consumes `stream` the way the subscription loop does and returns the batches it handed over. */
async function batchesOf(stream: PassThrough, limits = CATCH_UP_BATCH): Promise<number[][]> {
  const batches: number[][] = [];
  for await (const first of stream) batches.push(await gatherBatch<number>(stream, first as number, limits));
  return batches;
}

/** Writes 0..count-1, `chunk` at a time, one chunk per `everyMs`, then ends. */
function produce(stream: PassThrough, count: number, chunk: number, everyMs: number): void {
  let next = 0;
  const tick = () => {
    for (let i = 0; i < chunk && next < count; i++) stream.write(next++);
    if (next < count) setTimeout(tick, everyMs);
    else stream.end();
  };
  tick();
}

describe('gatherBatch', () => {
  it('hands over every event once, in order, whatever the batching', async () => {
    const stream = objects();
    produce(stream, 5_000, 37, 1);
    const batches = await batchesOf(stream);
    expect(batches.flat()).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
  });

  it('catching up, gathers large batches while events keep arriving', async () => {
    const stream = objects();
    produce(stream, 5_000, 50, 1);
    const batches = await batchesOf(stream);
    expect(Math.max(...batches.map((b) => b.length))).toBeGreaterThan(LIVE_BATCH.max);
    expect(batches.every((b) => b.length <= CATCH_UP_BATCH.max)).toBe(true);
  });

  it('live, takes only what is already buffered', async () => {
    const stream = objects();
    for (let i = 0; i < 5; i++) stream.write(i);
    const iterator = stream[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as number;
    // An event arriving a moment later is not waited for: it is the next batch's.
    setTimeout(() => stream.write(5), 1);
    const batch = await gatherBatch<number>(stream, first, LIVE_BATCH);
    expect(batch).toEqual([0, 1, 2, 3, 4]);
    expect((await iterator.next()).value).toBe(5);
  });

  it('stops waiting when nothing more arrives in time, and leaves a later event for the next batch', async () => {
    const stream = objects();
    stream.write(0);
    const iterator = stream[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as number;
    const batch = await gatherBatch<number>(stream, first, { max: 100, maxBytes: Number.POSITIVE_INFINITY, gatherMs: 5 });
    expect(batch).toEqual([0]);
    stream.write(1);
    expect((await iterator.next()).value).toBe(1);
  });

  it('stops at the byte budget, leaving the rest buffered for the next batch', async () => {
    const stream = objects();
    for (let i = 0; i < 10; i++) stream.write(i);
    const iterator = stream[Symbol.asyncIterator]();
    const first = (await iterator.next()).value as number;
    const batch = await gatherBatch<number>(stream, first, { max: 100, maxBytes: 3_000, gatherMs: 5 }, () => 1_000);
    expect(batch).toEqual([0, 1, 2]);
    expect((await iterator.next()).value).toBe(3);
  });
});
