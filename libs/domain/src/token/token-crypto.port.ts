import { DomainError } from '../shared/errors';
// What token decisions need from cryptography. The application layer calls these before decide, so decide stays pure.
import type { TokenType } from './token-types';

/**
 * A token's data as stored in events and read models: ciphertext plus a reference to the data key that sealed it.
 * The (wrapped) data key itself lives in the KeyStore, never here, so destroying it shreds every copy of the data.
 * All binary fields are base64.
 */
export interface EncryptedData {
  /** Envelope format version, so a future format can be read next to this one. */
  v: 1;
  alg: 'AES-256-GCM';
  /** Which data key in the KeyStore sealed this ciphertext (today: the token id; its key is per token). */
  key_ref: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

/**
 * What an envelope holds: the token's data, or its evaluated mask, or its fingerprint and search hashes as the event log
 * keeps them (`index`; both sealed with the same key, bound to their purpose), or a reactor's configuration (sealed under a key of its own, `reactor:<id>`). The purpose is part of the authenticated
 * data, so an envelope of one purpose never opens as another: a sealed configuration is no token ciphertext.
 */
export type SealPurpose = 'data' | 'mask' | 'index' | 'reactor_configuration';

export interface EncryptOptions {
  /**
   * Only with the token's existing data key: rejects with DataKeyUnavailableError instead of creating one (a token
   * deleted meanwhile must not get a new key).
   */
  existingKey?: boolean;
}

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

/** What using a deleted tenant's key answers: its callers are not authenticated any more. */
export const tenantDeletedError = () => new DomainError('unauthenticated', 'The API key is not valid: its tenant has been deleted.');

/** The data key of a token is gone (the token was deleted) or does not open this envelope. Names no data or key. */
export class DataKeyUnavailableError extends Error {
  constructor(readonly tokenId: string, reason: string) {
    super(`The data of token ${tokenId} cannot be decrypted: ${reason}`);
    this.name = 'DataKeyUnavailableError';
  }
}
