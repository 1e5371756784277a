// Where wrapped data keys live: apart from the event log, so a key can be destroyed while the events stay forever.

/**
 * Holds one wrapped (encrypted by the tenant key) data key per token. Stores only ciphertext of keys; still, it is the
 * one store whose deletion must be physical (no soft delete, no undo log kept around), since that is what shreds data.
 */
export interface KeyStore {
  /**
   * Stores `wrappedKey` unless the token already has a key, and returns the key now stored. The first writer wins,
   * so two concurrent first encryptions of one token agree on a single key.
   */
  put(tenantId: string, tokenId: string, wrappedKey: Uint8Array): Promise<Uint8Array>;
  /** The wrapped key, or null when none was stored or it was destroyed. */
  get(tenantId: string, tokenId: string): Promise<Uint8Array | null>;
  /** Removes the key for good (overwritten on disk where the adapter can). A missing key is not an error. */
  destroy(tenantId: string, tokenId: string): Promise<void>;
}
