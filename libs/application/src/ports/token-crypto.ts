// What the use cases need from cryptography: sealing tokens' data under per-token keys, opening it, keyed hashes. The
// application layer calls these before decide, so decide stays pure.
import type { EncryptedData, EncryptOptions, SealPurpose, DataKeyUnavailableError, TokenType } from '@vault/domain';

export interface TokenCrypto {
  /**
   * Seals `plaintext` with the token's data key, creating and storing that key on first use. Updates reuse the key,
   * so a rejected or lost update never leaves the current ciphertext without its key.
   */
  encrypt(tenantId: string, tokenId: string, plaintext: string, purpose?: SealPurpose, options?: EncryptOptions): Promise<EncryptedData>;
  /** Opens an envelope of that purpose; rejects with DataKeyUnavailableError once the key is destroyed, or on tampering. */
  decrypt(tenantId: string, tokenId: string, encrypted: EncryptedData, purpose?: SealPurpose): Promise<string>;
  /**
   * Opens many envelopes of one tenant and purpose at once (a rebuild opens every token's): each item's plaintext, or
   * the DataKeyUnavailableError `decrypt` would reject with. Rejects as a whole when the tenant's key is destroyed.
   */
  decryptMany(tenantId: string, items: ReadonlyArray<{ tokenId: string; encrypted: EncryptedData }>, purpose: SealPurpose): Promise<Array<string | DataKeyUnavailableError>>;
  /** Base58 of a keyed hash of `type` and the evaluated fingerprint expression: equal within a tenant, unrelated across. */
  fingerprint(tenantId: string, type: TokenType, evaluated: string): string;
  /** Keyed hash of one normalised search value (see normalizeSearchValue); the read model stores only these. */
  searchHash(tenantId: string, normalizedValue: string): string;
}

/** A tenant's key, as the tenant's deletion needs it: destroyed once, refused everywhere from then on. */
export interface TenantKeys {
  /** Destroys the tenant's key: every token of the tenant (and every reactor configuration) is shredded with it. */
  destroyTenantKey(tenantId: string): void;
  /** Whether the tenant's key was destroyed, by this process or any other sharing the key store. */
  isTenantKeyDestroyed(tenantId: string): boolean;
}
