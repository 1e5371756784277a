// One catch-up subscription to $all: server-side stream prefix filter, one batch in flight at a time, caught-up
// announced only once the handler has seen everything up to the end of the log.
import {
  streamNameFilter,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
} from '@eventstore/db-client';
import {
  comparePositions,
  VAULT_STREAM_PREFIXES,
  type LogPosition,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from '@vault/application';
import { isAfter, positionOf, startingAt, toLogPosition } from './esdb-position';
import type { Readable } from 'node:stream';
import { CATCH_UP_BATCH, gatherBatch, LIVE_BATCH } from './esdb-batch';
import { toAccessError } from './esdb-errors';
import { toRecordedEvent } from './esdb-recorded-event';


/**
 * `logEnd` gives the last position of the whole log when the subscription starts. Servers from 23.10 on send a
 * caught-up message; older ones do not, so reaching `logEnd` (by an event or a filter checkpoint) counts as well.
 */
export function subscribeToVault(
  client: EventStoreDBClient,
  options: SubscribeOptions,
  logEnd: () => Promise<LogPosition | null>,
): Subscription {
  const prefixes = [...(options.streamPrefixes ?? VAULT_STREAM_PREFIXES)];
  let closing = false;
  let handling = false;
  let live = false;
  let announced = false;
  let end: LogPosition | null | undefined; // undefined until logEnd answers
  let reached = options.after;

  const subscription = client.subscribeToAll({
    fromPosition: startingAt(options.after),
    filter: streamNameFilter({
      prefixes,
      checkpointReached: (_subscription, position) => reach(toLogPosition(position)),
    }),
  });

  function reach(position: LogPosition): void {
    if (reached === null || comparePositions(position, reached) > 0) reached = position;
    checkSoon();
  }

  // The client signals caught-up (and checkpoints) as it transforms the server's messages, possibly inside the read
  // that takes the last older event, i.e. before its batch is handled. Checking on the next macrotask lets that
  // batch start first; the check after it (and an empty buffer) then announces in the right order.
  function checkSoon(): void {
    setImmediate(announceIfCaughtUp);
  }

  function announceIfCaughtUp(): void {
    if (!live && end !== undefined) live = end === null || (reached !== null && comparePositions(reached, end) >= 0);
    if (!live || announced || closing || handling || subscription.readableLength > 0) return;
    announced = true;
    options.onCaughtUp?.();
  }

  // The loop sees errors through `for await`; this keeps a late transport error after close from crashing the process.
  subscription.on('error', () => undefined);
  subscription.on('caughtUp', () => {
    live = true;
    checkSoon();
  });
  logEnd().then(
    (position) => {
      end = position;
      checkSoon();
    },
    () => undefined, // without it only the server's caught-up message counts; a dead connection fails the loop below
  );

  const loop = (async () => {
    // `for await` pulls one event at a time, so the client pauses the gRPC stream while a batch is being handled.
    for await (const first of subscription) {
      if (closing) return;
      // Counted as handling from here: the client may signal caught-up while the gathering reads pull messages
      // through it, and that must not be announced before this batch is applied.
      handling = true;
      try {
        // Behind the log, keep reading while events keep coming (large batches); live, take what is buffered.
        // The client's Subscription is a stream.Transform; its typings narrow `on` to its own events only.
        const batch = await gatherBatch<AllStreamResolvedEvent>(
          subscription as unknown as Readable,
          first,
          live ? LIVE_BATCH : CATCH_UP_BATCH,
          approximateSize,
        );
        if (closing) return;
        // The server's prefix filter already applies; the checks here keep `$` records and replays out regardless.
        const events = batch
          .map((resolved) => toRecordedEvent(resolved, prefixes))
          .filter((e): e is RecordedEvent => e !== null && isAfter(e.position, options.after));
        if (events.length > 0) await options.onEvents(events);
        if (closing) return;
        reach(positionOf(batch[batch.length - 1]));
      } finally {
        handling = false;
      }
    }
    if (!closing) throw new Error('EventStoreDB ended the subscription');
  })().catch(async (error: unknown) => {
    if (closing) return; // cancelling the gRPC call or destroying the stream on close surfaces here
    closing = true;
    await subscription.unsubscribe().catch(() => undefined);
    subscription.destroy(); // the client stream is released here, not only on close(): nobody closes a failed subscription
    options.onError?.(toAccessError(error, 'subscribe to $all'));
  });

  return {
    close: async () => {
      if (!closing) {
        closing = true;
        await subscription.unsubscribe().catch(() => undefined);
        subscription.destroy(); // ends the `for await` even if the cancelled call never ends the stream
      }
      await loop;
    },
  };
}

/** About how many bytes an event holds (its data and metadata), for the catch-up batch's byte budget. */
function approximateSize(resolved: AllStreamResolvedEvent): number {
  const event = resolved.event;
  if (!event) return 0;
  const part = (value: unknown): number =>
    value instanceof Uint8Array ? value.byteLength : value === undefined ? 0 : (JSON.stringify(value)?.length ?? 0);
  return part(event.data) + part(event.metadata);
}
