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

export class KeyShreddingStore implements ProjectionStore {
  constructor(private readonly keys: SqliteKeyStore) {}

  async checkpoint(): Promise<LogPosition | null> {
    const position = this.keys.shredCheckpoint();
    return position === null ? null : decodePosition(position);
  }

  /** Every TokenDeleted is acted on, replayed ones included: destroying a key twice is harmless. */
  async load(): Promise<Map<string, StoredDocument>> {
    return new Map();
  }

  async commit(changes: DocumentChange[], checkpoint: LogPosition): Promise<void> {
    const keys = changes
      .filter((change) => change.collection === KEY_SHREDDING_COLLECTION && change.doc !== null)
      .map((change) => {
        const { tenant_id, token_id } = change.doc as unknown as KeyToShred;
        return { tenantId: tenant_id, tokenId: token_id };
      });
    this.keys.shred(keys, encodePosition(checkpoint));
  }
}
