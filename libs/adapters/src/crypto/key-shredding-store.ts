// The shredder's ProjectionStore: the "documents" of the key-shredding projection are data keys to destroy, so a
// commit destroys them and moves the checkpoint in the key store's own transaction. Nothing is ever loaded back.
import {
  decodePosition,
  encodePosition,
  KEY_SHREDDING_COLLECTION,
  type DocumentChange,
  type KeyToShred,
  type LogPosition,
  type ProjectionStore,
  type StoredDocument,
} from '@vault/application';
import type { SqliteKeyStore } from './sqlite-key-store';

/** A batch that destroys no key moves the stored checkpoint at most this often (it is only a replay bound). */
const IDLE_CHECKPOINT_MS = 1_000;

export class KeyShreddingStore implements ProjectionStore {
  /** Where the shredder is; undefined until read from the key store. Persisted with every batch that destroys keys. */
  private position: LogPosition | null | undefined;
  private persistedAt = 0;

  constructor(private readonly keys: SqliteKeyStore) {}

  async checkpoint(): Promise<LogPosition | null> {
    if (this.position === undefined) {
      const stored = this.keys.shredCheckpoint();
      this.position = stored === null ? null : decodePosition(stored);
    }
    return this.position;
  }

  /** Every TokenDeleted is acted on, replayed ones included: destroying a key twice is harmless. */
  async load(): Promise<Map<string, StoredDocument>> {
    return new Map();
  }

  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    const toShred = changes
      .filter((change) => change.collection === KEY_SHREDDING_COLLECTION && change.doc !== null)
      .map((change) => change.doc as unknown as KeyToShred);
    // Tenant keys before the checkpoint moves past their TenantDeleted: a crash in between destroys them again.
    for (const { tenant_id } of toShred.filter((key) => key.whole_tenant)) this.keys.destroyTenantKey(tenant_id);
    const keys = toShred.filter((key) => !key.whole_tenant).map(({ tenant_id, token_id }) => ({ tenantId: tenant_id, tokenId: token_id }));
    // Most batches are creates and updates: writing the checkpoint for each would add a key-store transaction to every
    // write. Kept in memory, it is stored with the next deletion or after a second; a crash replays at most that much,
    // and replaying is harmless (a destroyed key stays destroyed).
    const now = Date.now();
    if (toShred.length > 0 || now - this.persistedAt >= IDLE_CHECKPOINT_MS) {
      this.keys.shred(keys, encodePosition(checkpoint));
      this.persistedAt = now;
    }
    this.position = checkpoint;
  }
}
