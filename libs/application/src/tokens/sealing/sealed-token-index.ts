// A token's fingerprint and search hashes are computed from its data (what a write may reveal: they are data),
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
import { DataKeyUnavailableError, notFound, TENANT_STREAM_PREFIX, tokenStream, type EncryptedData } from '@vault/domain';
import { SealingEventStore } from '../../commands/sealing-event-store';
import type { TokenCrypto } from '../../ports/token-crypto';
import type { AppendResult, EventStore, EventToAppend, RecordedEvent } from '../../ports/event-store';
import { isShredded } from '../../shared/shredded';

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

/** Indexes of this process's own recent appends kept for its projector, which reads them back within milliseconds. */
const RECENT_LIMIT = 10_000;

/** The event with its index in place of the sealed one. Copied field by field: a rest pattern with a computed key costs more than the decryption. */
function withIndex(event: RecordedEvent, index: TokenIndex): RecordedEvent {
  const data = event.data as Record<string, unknown>;
  const opened: Record<string, unknown> = {};
  for (const key in data) if (key !== SEALED_INDEX_FIELD) opened[key] = data[key];
  opened.fingerprint = index.fingerprint;
  opened.search_hashes = index.search_hashes;
  return { ...event, data: opened };
}

export class SealedTokenIndexEventStore extends SealingEventStore {
  /**
   * The index of each token event this process appended, by stream and revision, until a read opens it: the live
   * projector then needs no data key to read back what was just written (opening costs a key-store read and two
   * AES-GCM operations). In memory only, bounded, and dropped when the token's deletion is appended.
   */
  private readonly recent = new Map<string, Map<bigint, TokenIndex>>();
  private recentCount = 0;

  constructor(
    inner: EventStore,
    private readonly crypto: TokenCrypto,
    private readonly recentLimit = RECENT_LIMIT,
  ) {
    super(inner);
  }

  /** Remembers what this process appended, and forgets a deleted token's (or tenant's) at once. */
  protected override appended(streamId: string, events: EventToAppend[], result: AppendResult): void {
    const first = result.nextExpectedRevision - BigInt(events.length - 1);
    events.forEach((event, i) => {
      if (SEALED_EVENT_TYPES.has(event.type) && hasPlainIndex(event.data)) {
        let revisions = this.recent.get(streamId);
        if (!revisions) this.recent.set(streamId, (revisions = new Map()));
        if (!revisions.has(first + BigInt(i))) this.recentCount += 1;
        revisions.set(first + BigInt(i), { fingerprint: event.data.fingerprint, search_hashes: event.data.search_hashes });
      } else if (event.type === 'TokenDeleted') {
        this.forget(streamId);
      } else if (event.type === 'TenantDeleted' && streamId.startsWith(TENANT_STREAM_PREFIX)) {
        this.forgetTenant(streamId.slice(TENANT_STREAM_PREFIX.length));
      }
    });
    // The oldest streams go first (a Map iterates in insertion order).
    for (const oldest of this.recent.keys()) {
      if (this.recentCount <= this.recentLimit) break;
      this.forget(oldest);
    }
  }

  /** Every token of a deleted tenant: its indexes must not outlive it, even in memory. */
  private forgetTenant(tenantId: string): void {
    const prefix = tokenStream(tenantId, '');
    for (const streamId of [...this.recent.keys()]) if (streamId.startsWith(prefix)) this.forget(streamId);
  }

  private forget(streamId: string): void {
    this.recentCount -= this.recent.get(streamId)?.size ?? 0;
    this.recent.delete(streamId);
  }

  /** The index this process appended at that revision, if it still holds it; taken out, since one read needs it. */
  private takeRecent(streamId: string, revision: bigint): TokenIndex | undefined {
    const revisions = this.recent.get(streamId);
    const index = revisions?.get(revision);
    if (!revisions || !index) return undefined;
    revisions.delete(revision);
    this.recentCount -= 1;
    if (revisions.size === 0) this.recent.delete(streamId);
    return index;
  }







  protected async sealAll(events: EventToAppend[]): Promise<EventToAppend[]> {
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

  protected async openAll(events: RecordedEvent[]): Promise<RecordedEvent[]> {
    if (!events.some((event) => SEALED_EVENT_TYPES.has(event.type))) return events;
    // Each sealed index: from this process's memory, or else opened, one call per tenant.
    const indexes = new Map<RecordedEvent, TokenIndex>();
    const toOpen = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      if (!SEALED_EVENT_TYPES.has(event.type) || !hasSealedIndex(event.data)) continue;
      const recent = this.takeRecent(event.streamId, event.revision);
      if (recent) indexes.set(event, recent);
      else {
        const tenant = toOpen.get(event.data.tenant_id) ?? [];
        tenant.push(event);
        toOpen.set(event.data.tenant_id, tenant);
      }
    }
    for (const [tenantId, sealed] of toOpen) {
      for (const [i, plaintext] of (await this.openIndexes(tenantId, sealed)).entries()) {
        indexes.set(sealed[i], plaintext === null ? { fingerprint: '', search_hashes: [] } : (JSON.parse(plaintext) as TokenIndex));
      }
    }
    return events.map((event) => {
      const index = indexes.get(event);
      return index ? withIndex(event, index) : event;
    });
  }

  /** Each event's sealed index opened; null where its key (or its tenant's) is destroyed. */
  private async openIndexes(tenantId: string, events: RecordedEvent[]): Promise<Array<string | null>> {
    const sealed = events.map((event) => event.data as TokenEventData & { [SEALED_INDEX_FIELD]: EncryptedData });
    try {
      const opened = await this.crypto.decryptMany(tenantId, sealed.map((data) => ({ tokenId: data.id, encrypted: data[SEALED_INDEX_FIELD] })), 'index');
      return opened.map((result) => (typeof result === 'string' ? result : null));
    } catch (error) {
      if (!isShredded(error)) throw error;
      return events.map(() => null);
    }
  }
}
