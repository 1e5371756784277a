// For specs: an EventStore that passes everything to a real one, but keeps each appendMany batch and can hold or fail
// appends (all, or only those that touch an audit stream), so group commit and its failures can be watched.
import type { AppendResult, EventStore, StreamAppend } from '@vault/application/ports/event-store';

export interface InterceptedStore extends EventStore {
  /** Every appendMany batch that reached the real store, in order. */
  readonly batches: StreamAppend[][];
  /** When set, an append whose batch it matches throws it instead of writing. */
  failWith: ((batch: StreamAppend[]) => Error | null) | null;
  /** When set, appends wait for it before writing (an append in flight). */
  hold: Promise<void> | null;
}

export const failAuditAppends = (batch: StreamAppend[]): Error | null =>
  batch.some(({ streamId }) => streamId.startsWith('audit-')) ? new Error('disk I/O error') : null;

export function interceptAppends(events: EventStore): InterceptedStore {
  const store: InterceptedStore = {
    batches: [],
    failWith: null,
    hold: null,
    append: async (streamId, appended, expected) => (await store.appendMany([{ streamId, events: appended, expected }]))[0],
    appendMany: async (batch): Promise<AppendResult[]> => {
      if (store.hold) await store.hold;
      const failure = store.failWith?.(batch);
      if (failure) throw failure;
      store.batches.push(batch);
      return events.appendMany(batch);
    },
    readStream: (streamId) => events.readStream(streamId),
    readAll: (after, limit) => events.readAll(after, limit),
    headPosition: () => events.headPosition(),
    backlog: (after, cap) => events.backlog(after, cap),
    subscribe: (options) => events.subscribe(options),
    close: () => events.close(),
  };
  return store;
}
