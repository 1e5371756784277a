// Access records, group-committed: every record() made in one turn of the event loop, or while the previous append is
// in flight, goes into the next EventStore.appendMany, one StreamAppend per tenant's audit stream. A reveal-heavy
// load then costs one transaction per batch instead of one per request (the bench's audit phase measures it).
//
// Batches are as large as the turn makes them on purpose: every append costs more than its records (a transaction,
// and a wake-up of the projector and the key shredder, which read what was appended). With an append every 8 records
// the bench's service CPU per reveal was 3-28% above records-off, with one a turn (about 32 records at 32 connections)
// -18% to -1% (README, Performance). `flushAt` still starts a batch early when that many records are waiting, e.g.
// gathered while a slow append (EventStoreDB) was in flight.
import { auditStream, DomainError, type AccessRecorded, type AccessRecordedData, type Actor } from '@vault/domain';
import type { AccessLog } from '../ports/access-log';
import type { EventStore, EventToAppend, StreamAppend } from '../ports/event-store';
import { currentRequestContext } from '../ports/request-context';

export interface GroupCommitOptions {
  /** Most records in one append. A call with more is split over several appends and resolves once all are durable. */
  maxBatch: number;
  /** A batch is appended as soon as this many records wait, without waiting for the end of the turn (see above). */
  flushAt: number;
  /** Told about every failed append (the records' callers get an AccessNotRecordedError): for the operator's log. */
  onAppendFailed?(error: unknown, records: number): void;
}

/** 503 with Retry-After: the access could not be recorded, so the request answers nothing it would have shown. */
export class AccessNotRecordedError extends DomainError {
  constructor(override readonly cause: unknown) {
    super('unavailable', 'The access could not be recorded in the audit log, so nothing was answered; retry the request.', undefined, 1);
    this.name = 'AccessNotRecordedError';
  }
}

/** One record() call: settled once all its records are durable, or at the first failed append holding one of them. */
interface Waiter {
  remaining: number;
  settled: boolean;
  resolve(): void;
  reject(error: unknown): void;
}

interface Queued {
  streamId: string;
  event: EventToAppend;
  waiter: Waiter;
}

/** 500 records of about 400 bytes stay far below EventStoreDB's 1 MiB per append. */
export const DEFAULT_GROUP_COMMIT: GroupCommitOptions = { maxBatch: 500, flushAt: 500 };

export class GroupCommitAccessLog implements AccessLog {
  private queue: Queued[] = [];
  /** The drain loop, while one is scheduled or running: record() calls meanwhile only queue. */
  private draining: Promise<void> | null = null;
  /** Ends the drain loop's wait for the end of the turn; null while it appends. */
  private wakeUp: (() => void) | null = null;

  constructor(
    private readonly events: EventStore,
    private readonly options: GroupCommitOptions = DEFAULT_GROUP_COMMIT,
  ) {
    if (!Number.isInteger(options.maxBatch) || options.maxBatch < 1) throw new Error('maxBatch must be a positive integer');
    if (!Number.isInteger(options.flushAt) || options.flushAt < 1) throw new Error('flushAt must be a positive integer');
  }

  record(records: readonly AccessRecordedData[], actor: Actor): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    // Read now, in the caller's async context: the drain loop runs outside any request.
    const correlationId = currentRequestContext()?.requestId ?? 'none';
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { remaining: records.length, settled: false, resolve, reject };
      for (const data of records) {
        const event: AccessRecorded = { type: 'AccessRecorded', data };
        this.queue.push({
          streamId: auditStream(data.tenant_id),
          event: { ...event, metadata: { tenant_id: data.tenant_id, actor, timestamp: data.created_at, correlation_id: correlationId } },
          waiter,
        });
      }
      this.draining ??= this.drain();
      if (this.queue.length >= this.options.flushAt) this.wakeUp?.();
    });
  }

  /** Resolves once every record queued so far has been appended or refused (shutdown waits on it before closing the store). */
  async flush(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      // The rest of this turn's calls join the batch: the append starts once the event loop has run what is ready,
      // or once `flushAt` records are waiting (those queued while the last append was in flight, say).
      if (this.queue.length < this.options.flushAt) await this.endOfTurnOrFull();
      const batch = this.queue.splice(0, this.options.maxBatch);
      try {
        await this.events.appendMany(byStream(batch));
      } catch (error) {
        this.options.onAppendFailed?.(error, batch.length);
        const failure = new AccessNotRecordedError(error);
        for (const { waiter } of batch) settle(waiter, failure);
        continue;
      }
      for (const { waiter } of batch) {
        waiter.remaining -= 1;
        if (waiter.remaining === 0) settle(waiter);
      }
    }
    this.draining = null;
  }

  private async endOfTurnOrFull(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.wakeUp = resolve;
      setImmediate(resolve);
    });
    this.wakeUp = null;
  }
}

/** One StreamAppend per audit stream, the records in the order they were queued; no revision check. */
const byStream = (batch: readonly Queued[]): StreamAppend[] => {
  const streams = new Map<string, StreamAppend>();
  for (const { streamId, event } of batch) {
    const part = streams.get(streamId);
    if (part) part.events.push(event);
    else streams.set(streamId, { streamId, events: [event], expected: 'any' });
  }
  return [...streams.values()];
};

const settle = (waiter: Waiter, error?: unknown): void => {
  if (waiter.settled) return;
  waiter.settled = true;
  if (error === undefined) waiter.resolve();
  else waiter.reject(error);
};
