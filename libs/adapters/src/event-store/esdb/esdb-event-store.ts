// The production event log on EventStoreDB: one stream per aggregate, $all as the ordered log of the whole vault.
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  jsonEvent,
  type AllStreamResolvedEvent,
  type Direction,
  type JSONType,
  type ReadPosition,
} from '@eventstore/db-client';
import {
  VAULT_STREAM_PREFIXES,
  WrongExpectedRevisionError,
  type AppendResult,
  type Backlog,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type LogPosition,
  type RecordedEvent,
  type StreamAppend,
  type SubscribeOptions,
  type Subscription,
} from '@vault/application';
import { isStreamNotFound, toAccessError, toEsdbExpectedRevision, toPortError } from './esdb-errors';
import { isAfter, positionOf, startingAt, toEsdbPosition, toLogPosition } from './esdb-position';
import { isVaultEvent, toRecordedEvent } from './esdb-recorded-event';
import { subscribeToVault } from './esdb-subscription';
import { redactCredentials } from '../../system/redact-credentials';

/**
 * Client 6.x cannot filter `readAll` on the server (only subscriptions take a filter), so $all is read in pages and
 * filtered here; system streams ($stats, $ce-…, $$metadata) make up part of every page.
 */
const READ_PAGE = 500;

/** The client's warnings while it parses a connection string, and its parse errors, without the string itself. */
function parseConnectionString(connectionString: string, warn: (message: string) => void): EventStoreDBClient {
  const warnings: string[] = [];
  const consoleWarn = console.warn;
  // Synchronous: nothing else runs while console.warn is borrowed.
  console.warn = (...args: unknown[]) => void warnings.push(args.map(String).join(' '));
  try {
    return EventStoreDBClient.connectionString(connectionString);
  } catch (error) {
    // "Unexpected "<part of the string>" at position N, expected X." – the part may be a password's.
    const reason = error instanceof Error ? error.message.split('\n')[0].replace(/^Unexpected "[\s\S]*" at position/, 'Unexpected input at position') : 'unreadable';
    throw new Error(`VAULT_EVENT_STORE is not a valid EventStoreDB connection string: ${redactCredentials(reason)}`);
  } finally {
    console.warn = consoleWarn;
    // The first line is the client's reason; the next ones repeat the connection string with a marker under it.
    for (const warning of warnings) warn(`VAULT_EVENT_STORE: ${redactCredentials(warning.split('\n')[0])}`);
  }
}

/** Where the adapter's warnings go when its caller passes no logger: one line in the JSON logger's format. */
const warnAsJsonLine = (message: string): void => {
  process.stdout.write(JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg: message }) + '\n');
};

export class EsdbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<Subscription>();

  /**
   * `connectionString` as the client takes it, e.g. `esdb://localhost:2113?tls=false`. The client's parser prints its
   * warnings with console.warn, quoting the whole string (a password included), and its errors quote part of it: both
   * are caught here, and only their first line, redacted, reaches `warn` (a JSON log line by default) or the error.
   */
  constructor(connectionString: string, warn: (message: string) => void = warnAsJsonLine) {
    this.client = parseConnectionString(connectionString, warn);
  }

  static fromConnectionString(connectionString: string, warn?: (message: string) => void): EsdbEventStore {
    return new EsdbEventStore(connectionString, warn);
  }

  /** Subscriptions delivering or retrying now; a failed or closed one no longer counts. */
  get openSubscriptions(): number {
    return this.subscriptions.size;
  }

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const proposed = events.map((e) =>
      jsonEvent({ type: e.type, data: e.data as JSONType, metadata: { ...e.metadata } }),
    );
    const result = await this.client
      .appendToStream(streamId, proposed, { expectedRevision: toEsdbExpectedRevision(expected) })
      .catch((error: unknown) => {
        throw toPortError(error, streamId, expected);
      });
    // Only with `throwOnAppendFailure=false` in the connection string does a conflict come back as a result, and
    // then the client does not report the actual revision reliably.
    if (!result.success) {
      const actual = result.nextExpectedRevision < 0n ? 'no_stream' : result.nextExpectedRevision;
      throw new WrongExpectedRevisionError(streamId, expected, actual);
    }
    if (!result.position) {
      throw new Error(`EventStoreDB reported no log position for the append to ${streamId}`);
    }
    return { nextExpectedRevision: result.nextExpectedRevision, position: toLogPosition(result.position) };
  }

  /**
   * EventStoreDB appends to one stream at a time: the streams are appended in batch order, each at its expected
   * revision, and the first refusal ends the batch with the streams before it written. Nothing is rolled back (a
   * stream's events cannot be unwritten), so callers document what a part-way batch leaves (README, tokenize).
   */
  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    if (batch.length === 0) throw new Error('appendMany needs at least one stream');
    if (new Set(batch.map(({ streamId }) => streamId)).size !== batch.length) {
      throw new Error('appendMany takes each stream at most once');
    }
    const results: AppendResult[] = [];
    for (const { streamId, events, expected } of batch) results.push(await this.append(streamId, events, expected));
    return results;
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId)) {
        const recorded = toRecordedEvent(resolved);
        if (recorded) events.push(recorded);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw toAccessError(error, `read ${streamId}`);
    }
    return events;
  }

  /** Read backwards from the end, one event (a `$` system event or a foreign one is not the vault's: null). */
  async readLastEvent(streamId: string): Promise<RecordedEvent | null> {
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        return toRecordedEvent(resolved) ?? null;
      }
    } catch (error) {
      if (isStreamNotFound(error)) return null;
      throw toAccessError(error, `read ${streamId}`);
    }
    return null;
  }

  async readAll(after: LogPosition | null, limit: number): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    let cursor = after;
    while (events.length < limit) {
      const page = await this.readAllPage(startingAt(cursor), FORWARDS, READ_PAGE);
      for (const resolved of page) {
        const position = positionOf(resolved);
        // The port's `after` is exclusive; a read of $all from a position may include the event at it.
        if (!isAfter(position, cursor)) continue;
        cursor = position;
        const recorded = toRecordedEvent(resolved, VAULT_STREAM_PREFIXES);
        if (recorded && events.length < limit) events.push(recorded);
      }
      if (page.length < READ_PAGE) break;
    }
    return events;
  }

  async headPosition(): Promise<LogPosition | null> {
    return this.lastPosition(VAULT_STREAM_PREFIXES);
  }

  /**
   * Reads $all forward from `after` and counts the vault's events, skipping system ones as the subscription does. On a
   * server shared with other applications, a long run of their events could make this unbounded: past
   * `10 × cap` records read it answers "more than cap".
   */
  async backlog(after: LogPosition | null, cap: number): Promise<Backlog> {
    let counted = 0; // up to cap + 1, which tells "more than cap"
    let scanned = 0;
    let oldestTimestamp: string | null = null;
    let cursor = after;
    for (;;) {
      if (scanned >= cap * 10) return { events: Math.min(counted, cap), capped: true, oldestTimestamp };
      let read = 0;
      await this.scanAll(startingAt(cursor), FORWARDS, READ_PAGE, (resolved) => {
        read += 1;
        const position = positionOf(resolved);
        if (!isAfter(position, cursor)) return;
        cursor = position;
        if (counted > cap || !isVaultEvent(resolved, VAULT_STREAM_PREFIXES)) return;
        if (counted === 0) oldestTimestamp = toRecordedEvent(resolved, VAULT_STREAM_PREFIXES)?.metadata.timestamp ?? null;
        counted += 1;
      });
      scanned += read;
      if (counted > cap || read < READ_PAGE) break;
    }
    return { events: Math.min(counted, cap), capped: counted > cap, oldestTimestamp };
  }

  subscribe(options: SubscribeOptions): Subscription {
    // A failed subscription has already ended its client stream; it leaves the set before the subscriber hears of it,
    // so a subscriber that retries on error (the projector, every second through an outage) leaves nothing behind.
    const onError = (error: unknown) => {
      this.subscriptions.delete(subscription);
      options.onError?.(error);
    };
    const inner = subscribeToVault(this.client, { ...options, onError }, () => this.lastPosition(null));
    const subscription: Subscription = {
      close: async () => {
        this.subscriptions.delete(subscription);
        await inner.close();
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await this.client.dispose();
  }

  /** The last event of the log, of streams with one of `prefixes` (null: any stream). Reads $all backwards in pages. */
  private async lastPosition(prefixes: readonly string[] | null): Promise<LogPosition | null> {
    const pageSize = prefixes ? READ_PAGE : 1;
    let cursor: LogPosition | null = null;
    for (;;) {
      const page = await this.readAllPage(cursor ? toEsdbPosition(cursor) : END, BACKWARDS, pageSize);
      for (const resolved of page) {
        const position = positionOf(resolved);
        // Whether a backwards read includes its starting position is not documented: skip it either way.
        if (cursor && !isAfter(cursor, position)) continue;
        cursor = position;
        if (!prefixes || isVaultEvent(resolved, prefixes)) return position;
      }
      if (page.length < pageSize) return null;
    }
  }

  /** One bounded page, read to its end. */
  private async readAllPage(
    fromPosition: ReadPosition,
    direction: Direction,
    maxCount: number,
  ): Promise<AllStreamResolvedEvent[]> {
    const page: AllStreamResolvedEvent[] = [];
    await this.scanAll(fromPosition, direction, maxCount, (resolved) => void page.push(resolved));
    return page;
  }

  /**
   * Hands each event of one bounded read to `visit` without keeping it, and reads to the end: leaving a read early
   * would leave its gRPC call open.
   */
  private async scanAll(
    fromPosition: ReadPosition,
    direction: Direction,
    maxCount: number,
    visit: (resolved: AllStreamResolvedEvent) => void,
  ): Promise<void> {
    try {
      for await (const resolved of this.client.readAll({ fromPosition, direction, maxCount })) visit(resolved);
    } catch (error) {
      throw toAccessError(error, 'read $all');
    }
  }
}
