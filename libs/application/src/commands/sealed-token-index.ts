// A token's fingerprint and search hashes are computed from its data (API.md "What a write may reveal": they are data),
// and keyed with its tenant's key, which outlives the token. Kept in the event log in plaintext, they would let whoever
// holds the log and the keys test guesses of a deleted token's data (an SSN's last 4 digits, then the rest, in about a
// second). So the log holds them sealed under the token's data key, like the data and the mask: deleting the token
// destroys that key and shreds them with the rest.
//
// This decorator of any EventStore seals them on the way in and opens them on the way out, so the domain, the use
// cases and the projections keep seeing `fingerprint` and `search_hashes`. An event whose data key is gone (its token
// or tenant was deleted later in the log) opens with neither: only a rebuild or a lagging projector reads such an
// event, and the deletion that follows it removes the token from every read model. Events written before this sealing
// existed carry the plaintext fields and pass through unchanged.
import { DataKeyUnavailableError, DomainError, notFound, type EncryptedData, type TokenCrypto } from '@vault/domain';
import type {
  AppendResult,
  EventStore,
  EventToAppend,
  ExpectedRevision,
  LogPosition,
  RecordedEvent,
  StreamAppend,
  SubscribeOptions,
  Subscription,
} from '../ports/event-store';

/** The token events whose data carries a fingerprint and search hashes (TokenContent). */
const SEALED_EVENT_TYPES: ReadonlySet<string> = new Set(['TokenCreated', 'TokenUpdated']);

/** What the log holds instead of `fingerprint` and `search_hashes`. */
export const SEALED_INDEX_FIELD = 'sealed_index';

interface TokenIndex {
  fingerprint: string;
  search_hashes: string[];
}

type TokenEventData = Record<string, unknown> & { id: string; tenant_id: string };

const hasPlainIndex = (data: unknown): data is TokenEventData & TokenIndex =>
  typeof data === 'object' && data !== null && typeof (data as TokenIndex).fingerprint === 'string' && Array.isArray((data as TokenIndex).search_hashes);

const hasSealedIndex = (data: unknown): data is TokenEventData & { [SEALED_INDEX_FIELD]: EncryptedData } =>
  typeof data === 'object' && data !== null && typeof (data as Record<string, unknown>)[SEALED_INDEX_FIELD] === 'object';

/** The key of the token (or of its whole tenant) is destroyed: what a deletion later in the log did. */
const isShredded = (error: unknown): boolean =>
  error instanceof DataKeyUnavailableError || (error instanceof DomainError && error.kind === 'unauthenticated');

export class SealedTokenIndexEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly crypto: TokenCrypto,
  ) {}

  async append(streamId: string, events: EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.append(streamId, await this.sealAll(events), expected);
  }

  async appendMany(batch: StreamAppend[]): Promise<AppendResult[]> {
    const sealed: StreamAppend[] = [];
    for (const part of batch) sealed.push({ ...part, events: await this.sealAll(part.events) });
    return this.inner.appendMany(sealed);
  }

  async readStream(streamId: string): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readStream(streamId));
  }

  async readAll(after: LogPosition | null, limit: number): Promise<RecordedEvent[]> {
    return this.openAll(await this.inner.readAll(after, limit));
  }

  headPosition(): Promise<LogPosition | null> {
    return this.inner.headPosition();
  }

  backlog(after: LogPosition | null, cap: number) {
    return this.inner.backlog(after, cap);
  }

  subscribe(options: SubscribeOptions): Subscription {
    return this.inner.subscribe({ ...options, onEvents: async (events) => options.onEvents(await this.openAll(events)) });
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async sealAll(events: EventToAppend[]): Promise<EventToAppend[]> {
    if (!events.some((event) => SEALED_EVENT_TYPES.has(event.type))) return events;
    const sealed: EventToAppend[] = [];
    for (const event of events) {
      if (!SEALED_EVENT_TYPES.has(event.type) || !hasPlainIndex(event.data)) {
        sealed.push(event);
        continue;
      }
      const { fingerprint, search_hashes, ...rest } = event.data;
      const index: TokenIndex = { fingerprint, search_hashes };
      let envelope: EncryptedData;
      try {
        // The use case has just sealed the data with this key; a DELETE that won the race since has destroyed it.
        envelope = await this.crypto.encrypt(rest.tenant_id, rest.id, JSON.stringify(index), 'index', { existingKey: true });
      } catch (error) {
        if (error instanceof DataKeyUnavailableError) throw notFound('Token');
        throw error;
      }
      sealed.push({ ...event, data: { ...rest, [SEALED_INDEX_FIELD]: envelope } });
    }
    return sealed;
  }

  private async openAll(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    if (!events.some((event) => SEALED_EVENT_TYPES.has(event.type))) return events;
    const opened: RecordedEvent[] = [];
    for (const event of events) opened.push(SEALED_EVENT_TYPES.has(event.type) ? await this.open(event) : event);
    return opened;
  }

  private async open(event: RecordedEvent): Promise<RecordedEvent> {
    const data = event.data;
    if (!hasSealedIndex(data)) return event;
    const { [SEALED_INDEX_FIELD]: envelope, ...rest } = data;
    let index: TokenIndex;
    try {
      index = JSON.parse(await this.crypto.decrypt(rest.tenant_id, rest.id, envelope, 'index')) as TokenIndex;
    } catch (error) {
      if (!isShredded(error)) throw error;
      index = { fingerprint: '', search_hashes: [] };
    }
    return { ...event, data: { ...rest, fingerprint: index.fingerprint, search_hashes: index.search_hashes } };
  }
}
