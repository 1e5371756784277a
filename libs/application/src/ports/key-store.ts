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
  /** The wrapped keys of these tokens that exist, by token id: one lookup for many (a rebuild reads them all). */
  getMany(tenantId: string, tokenIds: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** Removes the key for good (overwritten on disk where the adapter can). A missing key is not an error. */
  destroy(tenantId: string, tokenId: string): Promise<void>;
}

/**
 * A tenant's key: random, wrapped by the master key, and the key that wraps every data key of the tenant (and keys its
 * fingerprints and search hashes). `derived`: a tenant whose data keys were wrapped before tenant keys were stored;
 * its keys are still derived from the master key, so destroying it shreds only by purging its data keys.
 */
export type TenantKeyRecord = { state: 'active'; wrapped: Uint8Array | null; derived: boolean } | { state: 'destroyed' };

/**
 * Where tenant keys live, beside the data keys. Synchronous: it is asked on every use of a tenant's key, so that a
 * key destroyed by any process is refused by every other at once.
 */
export interface TenantKeyStore {
  /** The tenant's key, or null before its first use. */
  tenantKey(tenantId: string): TenantKeyRecord | null;
  /** Stores `wrapped` unless the tenant has a key (first writer wins) and returns what is stored; a destroyed key stays destroyed. */
  createTenantKey(tenantId: string, wrapped: Uint8Array): TenantKeyRecord;
  /**
   * Destroys the tenant's key for good, leaving a tombstone so that it is never created again, and removes the
   * tenant's data keys (in the background: without the tenant key they open nothing anyway).
   */
  destroyTenantKey(tenantId: string): void;
}
