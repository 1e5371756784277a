// The event log: append with optimistic concurrency, read a stream, read and follow the whole log in order.
import { DomainError, type DomainEvent, type EventMetadata } from '@vault/domain';

/**
 * A position in the whole log. Embedded: commit = prepare = sequence number. EventStoreDB: its commit/prepare pair,
 * byte offsets in its log. Positions order events; their differences are not event counts (see `backlog`).
 */
export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export const comparePositions = (a: LogPosition, b: LogPosition): number =>
  a.commit === b.commit ? Number(a.prepare - b.prepare) : a.commit < b.commit ? -1 : 1;

/** Equal positions, or both null (nothing applied yet). */
export const samePosition = (a: LogPosition | null, b: LogPosition | null): boolean =>
  a === null || b === null ? a === b : comparePositions(a, b) === 0;

export const encodePosition = (p: LogPosition): string => `${p.commit}:${p.prepare}`;

export const decodePosition = (s: string): LogPosition => {
  const [commit, prepare] = s.split(':');
  return { commit: BigInt(commit), prepare: BigInt(prepare ?? commit) };
};

/** `no_stream`: the stream must not exist yet. A number: the revision (0-based) of the stream's last event. `any`: no check. */
export type ExpectedRevision = 'no_stream' | 'any' | bigint;

export interface EventToAppend {
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/** One stream's part of a batch append (EventStore.appendMany). */
export interface StreamAppend {
  streamId: string;
  events: EventToAppend[];
  expected: ExpectedRevision;
}

export interface RecordedEvent<T extends DomainEvent = DomainEvent> {
  streamId: string;
  /** 0-based index of the event in its stream. */
  revision: bigint;
  position: LogPosition;
  type: T['type'];
  data: T['data'];
  metadata: EventMetadata;
}

export interface AppendResult {
  /** Revision of the last event written. */
  nextExpectedRevision: bigint;
  /** Log position of the last event written: wait for the read models to pass it for read-your-writes. */
  position: LogPosition;
}

/** The events after a position, as far as counting them is worth it. */
export interface Backlog {
  /** Vault events strictly after the position, counted up to the cap. */
  events: number;
  /** True when there are more than `events`: counting stopped at the cap. */
  capped: boolean;
  /** `metadata.timestamp` of the first of them, the oldest one; null when there is none. */
  oldestTimestamp: string | null;
}

export interface Subscription {
  /** Stops delivery; resolves once no handler call is running. */
  close(): Promise<void>;
}

export interface SubscribeOptions {
  /** Deliver events strictly after this position; null = from the beginning. */
  after: LogPosition | null;
  /** Only streams whose id starts with one of these prefixes (e.g. `token-`). Omitted = every stream of the vault. */
  streamPrefixes?: string[];
  /** Called once per batch, in log order. The next batch is not delivered until the promise settles. */
  onEvents(events: RecordedEvent[]): Promise<void>;
  /** Called when catch-up reaches the end of the log the first time. */
  onCaughtUp?(): void;
  /** A failure that ended the subscription (handler or transport). */
  onError?(error: unknown): void;
}

export interface EventStore {
  /**
   * Appends atomically; throws a `WrongExpectedRevisionError` when the stream is not at `expected`, an
   * `AppendTooLargeError` when the store refuses to take that many bytes in one write.
   */
  append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several distinct streams, each at its own expected revision; the results come in batch order, and the
   * last one's position is the batch's last in the log. Embedded: one transaction, all or nothing: a stream not at its
   * expected revision is a `WrongExpectedRevisionError` and nothing of the batch is written. EventStoreDB has no
   * multi-stream transaction: the streams are appended one after another in batch order, so a refusal (or a crash)
   * part-way leaves the streams before it written.
   */
  appendMany(batch: StreamAppend[]): Promise<AppendResult[]>;
  /** Every event of one stream, in order; [] when the stream does not exist. */
  readStream(streamId: string): Promise<RecordedEvent[]>;
  /**
   * The last event of one stream, or null when it does not exist: a long stream's latest state (a webhook's last
   * delivery) without reading it all. Optional for decorators and test stores; `lastEventOf` falls back to readStream.
   */
  readLastEvent?(streamId: string): Promise<RecordedEvent | null>;
  /** Up to `limit` events strictly after `after` (null = from the start), in log order. */
  readAll(after: LogPosition | null, limit: number): Promise<RecordedEvent[]>;
  /** Position of the last event in the log, or null when it is empty. */
  headPosition(): Promise<LogPosition | null>;
  /**
   * How many events come strictly after `after` (null = from the start), counted up to `cap`: the lag of a follower
   * at `after`. Costs up to `cap` events' reading on EventStoreDB, so callers keep `cap` to what they decide on.
   */
  backlog(after: LogPosition | null, cap: number): Promise<Backlog>;
  /** Catches up from `after`, then delivers new events as they are appended, by any process. */
  subscribe(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
}

/** The last event of a stream, through readLastEvent when the store has it. */
export const lastEventOf = async (events: EventStore, streamId: string): Promise<RecordedEvent | null> =>
  events.readLastEvent ? events.readLastEvent(streamId) : ((await events.readStream(streamId)).at(-1) ?? null);

export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`Stream ${streamId} is at ${String(actual)}, expected ${String(expected)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * The store refused the append for its size (EventStoreDB's `MaxAppendSize`, summed over the events of one append).
 * A DomainError of kind `too_large`, so the API answers 413 rather than 500.
 */
export class AppendTooLargeError extends DomainError {
  constructor(
    readonly streamId: string,
    /** The store's limit in bytes, when it says. */
    readonly maxBytes: number | null,
  ) {
    super(
      'too_large',
      maxBytes === null
        ? 'The change is larger than the event store accepts in one write.'
        : `The change is larger than the event store accepts in one write (${maxBytes} bytes).`,
    );
    this.name = 'AppendTooLargeError';
  }
}

/**
 * The event store refused this process's credentials (EventStoreDB: reading `$all` needs a user in `$ops` or
 * `$admins`; a wrong password is refused the same way). Retrying cannot help: a follower stops for good on it.
 */
export class EventStoreAccessDeniedError extends Error {
  constructor(
    /** What was refused, e.g. `read $all`. */
    readonly operation: string,
    options?: { cause?: unknown },
  ) {
    super(`The event store denied access: ${operation}`, options);
    this.name = 'EventStoreAccessDeniedError';
  }
}

/** Every stream the vault writes starts with one of these; adapters ignore anything else in the log (e.g. `$` system streams). */
export const VAULT_STREAM_PREFIXES = ['tenant-', 'application-', 'formula-', 'token-', 'reactor-', 'proxy-', 'webhook-', 'delivery-', 'audit-'] as const;
