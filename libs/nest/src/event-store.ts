// Opens the configured event store: the store itself (what the key shredder follows), and the one everything else
// uses, which seals tokens' fingerprints and search hashes and private formulas' code in the log and counts appends
// for the API's metrics.
import {
  SealedFormulaContentEventStore,
  SealedTokenIndexEventStore,
  type AppendResult,
  type EventStore,
  type EventToAppend,
  type ExpectedRevision,
  type LogPosition,
  type StreamAppend,
  type SubscribeOptions,
} from '@vault/application';
import { SqliteEventStore } from '@vault/adapters';
import type { RecordedEvent, TokenCrypto } from '@vault/application';
import type { VaultConfig } from './config';

/** The configured store, as written: token indexes and private formulas sealed. Only for readers of neither (the key shredder). */
export function openRawEventStore(config: VaultConfig, warn?: (message: string) => void): EventStore {
  if (config.eventStore === 'embedded') return SqliteEventStore.open(config.dataDir, config.sync);
  // Loaded only when configured, so the embedded default never loads the EventStoreDB client.
  const esdb: typeof import('@vault/adapters/esdb') = require('@vault/adapters/esdb');
  // The client's own warnings about the connection string come out through our logger, without its credentials.
  return esdb.EsdbEventStore.fromConnectionString(config.eventStore, warn);
}

/**
 * `raw` with tokens' fingerprints and search hashes sealed under their data keys in the log, private formulas' name,
 * description and code under the formula's key (both wrapped by the tenant's key), and appends counted.
 */
export function openEventStore(raw: EventStore, crypto: TokenCrypto): CountingEventStore {
  return new CountingEventStore(new SealedFormulaContentEventStore(new SealedTokenIndexEventStore(raw, crypto), crypto));
}

/** Called once per event type of each successful append, with how many events of that type it wrote. */
export type AppendListener = (type: string, count: number) => void;

/** An event store that tells its listeners what each successful append wrote; everything else passes through. */
export class CountingEventStore implements EventStore {
  private readonly listeners: AppendListener[] = [];

  constructor(private readonly inner: EventStore) {}

  onAppended(listener: AppendListener): void {
    this.listeners.push(listener);
  }

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = await this.inner.append(streamId, events, expected);
    this.count(events);
    return result;
  }

  /** Counted once the whole batch is written, per event type over all its streams. */
  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    const results = await this.inner.appendMany(batch);
    this.count(batch.flatMap(({ events }) => events));
    return results;
  }

  private count(events: readonly EventToAppend[]): void {
    if (this.listeners.length === 0) return;
    const counts = new Map<string, number>();
    for (const event of events) counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    for (const [type, count] of counts) {
      for (const listener of this.listeners) {
        // The events are written: a failing listener must not turn the append into an error the caller retries.
        try {
          listener(type, count);
        } catch {
          /* a lost count */
        }
      }
    }
  }

  readStream(streamId: string) {
    return this.inner.readStream(streamId);
  }

  async readLastEvent(streamId: string): Promise<RecordedEvent | null> {
    return this.inner.readLastEvent ? this.inner.readLastEvent(streamId) : ((await this.inner.readStream(streamId)).at(-1) ?? null);
  }

  readAll(after: LogPosition | null, limit: number) {
    return this.inner.readAll(after, limit);
  }

  headPosition() {
    return this.inner.headPosition();
  }

  backlog(after: LogPosition | null, cap: number) {
    return this.inner.backlog(after, cap);
  }

  subscribe(options: SubscribeOptions) {
    return this.inner.subscribe(options);
  }

  close() {
    return this.inner.close();
  }
}
