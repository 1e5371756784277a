// A token's sealed data as events and read models hold it, and the errors of opening it: data, not a port.
import { DomainError } from '../shared/errors';

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
 * keeps them (`index`; both sealed with the same key, bound to their purpose),, a reactor's configuration (sealed under a key of its own, `reactor:<id>`) or a proxy's secrets (`proxy:<id>`). The purpose is part of the authenticated
 * data, so an envelope of one purpose never opens as another: a sealed configuration is no token ciphertext.
 */
export type SealPurpose = 'data' | 'mask' | 'index' | 'reactor_configuration' | 'proxy_secrets' | 'webhook_secret';

export interface EncryptOptions {
  /**
   * Only with the token's existing data key: rejects with DataKeyUnavailableError instead of creating one (a token
   * deleted meanwhile must not get a new key).
   */
  existingKey?: boolean;
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
