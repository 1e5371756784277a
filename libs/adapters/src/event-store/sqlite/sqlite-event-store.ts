// The embedded event log: one SQLite file, safe for several processes appending at once (writes are IMMEDIATE transactions).
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import {
  AppendResult,
  Backlog,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  LogPosition,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
  WrongExpectedRevisionError,
} from '@vault/application';
import { openDatabase, SqliteDatabase } from '../../sqlite/open-database';

interface EventRow {
  position: number;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

/** How often a live subscription looks for events appended by other processes. */
const POLL_INTERVAL_MS = 50;
const SUBSCRIPTION_BATCH = 1000;

export class SqliteEventStore implements EventStore {
  private readonly appended = new EventEmitter();
  private readonly statements;

  constructor(private readonly db: SqliteDatabase) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        stream_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        type TEXT NOT NULL,
        data TEXT NOT NULL,
        metadata TEXT NOT NULL,
        UNIQUE (stream_id, revision)
      );
    `);
    this.appended.setMaxListeners(0);
    this.statements = {
      streamRevision: db.prepare<[string], { revision: number | null }>(
        'SELECT MAX(revision) AS revision FROM events WHERE stream_id = ?',
      ),
      insert: db.prepare<[string, number, string, string, string]>(
        'INSERT INTO events (stream_id, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?)',
      ),
      readStream: db.prepare<[string], EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY revision'),
      readLast: db.prepare<[string], EventRow>('SELECT * FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1'),
      readAll: db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
      // Counts along the primary key and stops at the limit, however long the log.
      count: db.prepare<[number, number], { n: number }>(
        'SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE position > ? ORDER BY position LIMIT ?)',
      ),
      firstTimestamp: db.prepare<[number], { timestamp: string | null }>(
        "SELECT json_extract(metadata, '$.timestamp') AS timestamp FROM events WHERE position > ? ORDER BY position LIMIT 1",
      ),
    };
  }

  /** `normal` survives a killed process (WAL); `full` fsyncs every commit and also survives power loss. */
  static open(dataDir: string, synchronous: 'normal' | 'full' = 'normal'): SqliteEventStore {
    return new SqliteEventStore(openDatabase(join(dataDir, 'events.sqlite'), { synchronous }));
  }

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    const [result] = await this.appendMany([{ streamId, events, expected }]);
    return result;
  }

  /** One IMMEDIATE transaction: every stream is checked and written, or (on the first stale one) none is. */
  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    if (batch.length === 0) throw new Error('appendMany needs at least one stream');
    if (batch.some(({ events }) => events.length === 0)) throw new Error('append needs at least one event');
    if (new Set(batch.map(({ streamId }) => streamId)).size !== batch.length) {
      throw new Error('appendMany takes each stream at most once');
    }
    const write = this.db.transaction(() => batch.map((part) => this.write(part)));
    const results = write.immediate();
    this.appended.emit('appended', batch.map(({ streamId }) => streamId));
    return results;
  }

  /** Checks one stream's revision and inserts its events; inside a transaction, which a throw rolls back. */
  private write({ streamId, events, expected }: StreamAppend): AppendResult {
    const current = this.statements.streamRevision.get(streamId)?.revision ?? null;
    const actual = current === null ? ('no_stream' as const) : BigInt(current);
    const matches = expected === 'any' || (expected === 'no_stream' ? actual === 'no_stream' : actual === expected);
    if (!matches) throw new WrongExpectedRevisionError(streamId, expected, actual);
    let revision = current ?? -1;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const info = this.statements.insert.run(streamId, revision, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata));
      position = Number(info.lastInsertRowid);
    }
    return { nextExpectedRevision: BigInt(revision), position: toPosition(position) };
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.statements.readStream.all(streamId).map(toRecorded);
  }

  async readLastEvent(streamId: string): Promise<RecordedEvent | null> {
    const row = this.statements.readLast.get(streamId);
    return row ? toRecorded(row) : null;
  }

  async readAll(after: LogPosition | null, limit: number): Promise<RecordedEvent[]> {
    return this.statements.readAll.all(after === null ? 0 : Number(after.commit), limit).map(toRecorded);
  }

  async headPosition(): Promise<LogPosition | null> {
    const position = this.statements.head.get()?.position ?? null;
    return position === null ? null : toPosition(position);
  }

  async backlog(after: LogPosition | null, cap: number): Promise<Backlog> {
    const from = after === null ? 0 : Number(after.commit);
    const read = this.db.transaction(() => ({
      counted: this.statements.count.get(from, cap + 1)?.n ?? 0,
      oldest: this.statements.firstTimestamp.get(from)?.timestamp ?? null,
    }));
    const { counted, oldest } = read();
    return { events: Math.min(counted, cap), capped: counted > cap, oldestTimestamp: oldest };
  }

  subscribe(options: SubscribeOptions): Subscription {
    let closed = false;
    let wake: (() => void) | null = null;
    const followed = (streamId: string) => !options.streamPrefixes || options.streamPrefixes.some((prefix) => streamId.startsWith(prefix));
    // Woken by this process's appends to a stream it follows only: the access records and webhook deliveries that make
    // most appends wake no key shredder or webhook. Other processes' appends are found by the poll.
    const onAppended = (streamIds: readonly string[]) => {
      if (streamIds.some(followed)) wake?.();
    };
    this.appended.on('appended', onAppended);
    // Rows of other streams are skipped before their JSON is parsed (the key shredder follows a few streams of a log
    // that is mostly access records and token writes).
    const matches = (row: EventRow) => followed(row.stream_id);

    const loop = (async () => {
      let cursor = options.after;
      let caughtUp = false;
      while (!closed) {
        const page = this.statements.readAll.all(cursor === null ? 0 : Number(cursor.commit), SUBSCRIPTION_BATCH);
        if (page.length > 0) {
          cursor = toPosition(page[page.length - 1].position);
          const wanted = page.filter(matches).map(toRecorded);
          if (wanted.length > 0 && !closed) await options.onEvents(wanted);
          // A page of nothing wanted still gives the event loop a turn before the next one (a long backlog of it).
          else await new Promise<void>((resolve) => setImmediate(resolve));
          continue;
        }
        if (!caughtUp) {
          caughtUp = true;
          options.onCaughtUp?.();
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_INTERVAL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    })().catch((error: unknown) => {
      if (!closed) options.onError?.(error);
    });

    return {
      close: async () => {
        closed = true;
        this.appended.off('appended', onAppended);
        wake?.();
        await loop;
      },
    };
  }

  async close(): Promise<void> {
    this.appended.removeAllListeners();
    if (this.db.open) this.db.close();
  }
}

const toPosition = (n: number): LogPosition => ({ commit: BigInt(n), prepare: BigInt(n) });

const toRecorded = (row: EventRow): RecordedEvent => ({
  streamId: row.stream_id,
  revision: BigInt(row.revision),
  position: toPosition(row.position),
  type: row.type,
  data: JSON.parse(row.data),
  metadata: JSON.parse(row.metadata),
});
