// TokenCrypto with node:crypto. Envelope encryption: a random AES-256-GCM data key per token seals its data; the data
// key, wrapped by its tenant's key, lives in the KeyStore; the tenant key is random too, wrapped by the master key and
// stored beside the data keys, so destroying it shreds every token of the tenant at once. Fingerprint and search keys
// are derived from the tenant key. (Tenants whose keys predate stored tenant keys keep keys derived from the master.)
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { base58Encode, DataKeyUnavailableError, type EncryptedData, type EncryptOptions, type SealPurpose, tenantDeletedError, type TokenType } from '@vault/domain';
import type { KeyStore, TenantKeyStore, TenantKeys, TokenCrypto } from '@vault/application';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** First byte of a wrapped key, so another wrapping scheme can be introduced next to this one. */
const WRAP_FORMAT = 1;
const HKDF_SALT = Buffer.from('vault/tenant-keys/v1');
const TENANT_KEY_FORMAT = 1;
/** How many tenants' derived keys stay in memory; past it the cache starts over (derivation costs microseconds). */
const TENANT_CACHE_LIMIT = 10_000;

type Purpose = 'wrap' | 'fingerprint' | 'search';

export class AesGcmTokenCrypto implements TokenCrypto, TenantKeys {
  /** Per tenant, the keys derived for each purpose; asked of the key store on every use whether it still stands. */
  private readonly tenantKeys = new Map<string, Map<Purpose, Buffer>>();
  private readonly masterKey: Buffer;
  private readonly tenantWrapKey: Buffer;
  /** While a master-key rotation runs: the wrap key of the master key before it (VAULT_MASTER_KEY_PREVIOUS). */
  private readonly previousTenantWrapKey: Buffer | null;
  /**
   * Tenants whose key the key store showed standing during the current event-loop turn: the keys they derive are
   * used without asking again until the turn ends (a create asks for 6-8 keys, a page of revealed tokens for 20).
   * Another process's delete is seen from the next turn on; this process's at once (forget).
   */
  private readonly standing = new Set<string>();
  private clearing: NodeJS.Immediate | null = null;

  constructor(
    masterKey: Uint8Array,
    private readonly keys: KeyStore & TenantKeyStore,
    /** The master key a rotation is moving away from: tenant keys it still wraps open until they are re-wrapped. */
    previousMasterKey: Uint8Array | null = null,
  ) {
    if (masterKey.length !== KEY_BYTES) throw new Error(`The master key must be ${KEY_BYTES} bytes.`);
    if (previousMasterKey !== null && previousMasterKey.length !== KEY_BYTES) throw new Error(`The previous master key must be ${KEY_BYTES} bytes.`);
    this.masterKey = Buffer.from(masterKey);
    this.tenantWrapKey = tenantWrapKeyOf(this.masterKey);
    this.previousTenantWrapKey = previousMasterKey === null ? null : tenantWrapKeyOf(Buffer.from(previousMasterKey));
  }

  destroyTenantKey(tenantId: string): void {
    this.forget(tenantId);
    this.keys.destroyTenantKey(tenantId);
  }

  isTenantKeyDestroyed(tenantId: string): boolean {
    const destroyed = this.keys.tenantKey(tenantId)?.state === 'destroyed';
    // Whoever finds it destroyed (every request's authentication asks) ends this turn's use of its derived keys.
    if (destroyed) this.forget(tenantId);
    return destroyed;
  }

  async encrypt(tenantId: string, tokenId: string, plaintext: string, purpose: SealPurpose = 'data', options: EncryptOptions = {}): Promise<EncryptedData> {
    const dataKey = await this.dataKey(tenantId, tokenId, !options.existingKey);
    try {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', dataKey, iv).setAAD(dataAad(tenantId, tokenId, purpose));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return {
        v: 1,
        alg: 'AES-256-GCM',
        key_ref: tokenId,
        iv: iv.toString('base64'),
        ciphertext: ciphertext.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      };
    } finally {
      dataKey.fill(0);
    }
  }

  async decrypt(tenantId: string, tokenId: string, encrypted: EncryptedData, purpose: SealPurpose = 'data'): Promise<string> {
    checkEnvelope(tokenId, encrypted);
    return this.open(tenantId, tokenId, encrypted, purpose, await this.dataKey(tenantId, tokenId, false));
  }

  async decryptMany(
    tenantId: string,
    items: ReadonlyArray<{ tokenId: string; encrypted: EncryptedData }>,
    purpose: SealPurpose,
  ): Promise<Array<string | DataKeyUnavailableError>> {
    const wrapped = await this.keys.getMany(tenantId, items.map(({ tokenId }) => tokenId));
    return items.map(({ tokenId, encrypted }) => {
      try {
        checkEnvelope(tokenId, encrypted);
        const key = wrapped.get(tokenId);
        if (!key) throw new DataKeyUnavailableError(tokenId, 'its data key does not exist (the token was deleted).');
        return this.open(tenantId, tokenId, encrypted, purpose, this.unwrap(tenantId, tokenId, key));
      } catch (error) {
        if (error instanceof DataKeyUnavailableError) return error;
        throw error;
      }
    });
  }

  /** Opens `encrypted` with the token's unwrapped data key, which it then zeroes. */
  private open(tenantId: string, tokenId: string, encrypted: EncryptedData, purpose: SealPurpose, dataKey: Buffer): string {
    try {
      const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(encrypted.iv, 'base64'))
        .setAAD(dataAad(tenantId, tokenId, purpose))
        .setAuthTag(Buffer.from(encrypted.tag, 'base64'));
      const ciphertext = Buffer.from(encrypted.ciphertext, 'base64');
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch {
      throw new DataKeyUnavailableError(tokenId, 'the envelope does not open with its data key (altered or foreign).');
    } finally {
      dataKey.fill(0);
    }
  }

  fingerprint(tenantId: string, type: TokenType, evaluated: string): string {
    const mac = createHmac('sha256', this.tenantKey(tenantId, 'fingerprint')).update(`${type}\0${evaluated}`, 'utf8');
    return base58Encode(mac.digest());
  }

  /** Hex, not base64: search engines may compare case-insensitively, which would merge base64 values. */
  searchHash(tenantId: string, normalizedValue: string): string {
    return createHmac('sha256', this.tenantKey(tenantId, 'search')).update(normalizedValue, 'utf8').digest('hex');
  }

  /** The token's plaintext data key: unwrapped from the KeyStore, or (when `create`) generated and stored. */
  private async dataKey(tenantId: string, tokenId: string, create: boolean): Promise<Buffer> {
    let wrapped = await this.keys.get(tenantId, tokenId);
    if (wrapped === null) {
      if (!create) throw new DataKeyUnavailableError(tokenId, 'its data key does not exist (the token was deleted).');
      const fresh = randomBytes(KEY_BYTES);
      // put returns the key that won a race between two first encryptions; ours is dropped if it lost.
      wrapped = await this.keys.put(tenantId, tokenId, this.wrap(tenantId, tokenId, fresh));
      fresh.fill(0);
    }
    return this.unwrap(tenantId, tokenId, wrapped);
  }

  private wrap(tenantId: string, tokenId: string, dataKey: Buffer): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.tenantKey(tenantId, 'wrap'), iv).setAAD(wrapAad(tenantId, tokenId));
    const sealed = Buffer.concat([cipher.update(dataKey), cipher.final()]);
    return Buffer.concat([Buffer.of(WRAP_FORMAT), iv, sealed, cipher.getAuthTag()]);
  }

  private unwrap(tenantId: string, tokenId: string, wrapped: Uint8Array): Buffer {
    const bytes = Buffer.from(wrapped);
    const wrapKey = this.tenantKey(tenantId, 'wrap');
    try {
      if (bytes[0] !== WRAP_FORMAT || bytes.length !== 1 + IV_BYTES + KEY_BYTES + TAG_BYTES) throw new Error('format');
      const decipher = createDecipheriv('aes-256-gcm', wrapKey, bytes.subarray(1, 1 + IV_BYTES))
        .setAAD(wrapAad(tenantId, tokenId))
        .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
    } catch {
      // Not DataKeyUnavailableError: every key failing this way means VAULT_MASTER_KEY changed, an operator problem.
      throw new Error(`The data key of token ${tokenId} cannot be unwrapped: is VAULT_MASTER_KEY the one it was sealed with?`);
    }
  }

  /**
   * HKDF-SHA256(tenant key, info = purpose and tenant): one independent key per tenant and use. The tenant key is
   * created on first use; a destroyed one is refused (401) here, whichever process destroyed it.
   */
  private tenantKey(tenantId: string, purpose: Purpose): Buffer {
    const cached = this.tenantKeys.get(tenantId)?.get(purpose);
    if (cached && this.standing.has(tenantId)) return cached;
    let record = this.keys.tenantKey(tenantId);
    if (record?.state === 'destroyed') {
      this.forget(tenantId);
      throw tenantDeletedError();
    }
    let derived = this.tenantKeys.get(tenantId);
    if (!derived) {
      if (record === null) {
        const fresh = randomBytes(KEY_BYTES);
        record = this.keys.createTenantKey(tenantId, this.wrapTenantKey(tenantId, fresh));
        fresh.fill(0);
        if (record.state === 'destroyed') throw tenantDeletedError();
      }
      if (this.tenantKeys.size >= TENANT_CACHE_LIMIT) this.forgetAll();
      derived = new Map();
      this.tenantKeys.set(tenantId, derived);
    }
    let key = derived.get(purpose);
    if (!key) {
      const root = record!.state === 'active' && !record!.derived ? this.unwrapTenantKey(tenantId, record!.wrapped!) : this.masterKey;
      key = Buffer.from(hkdfSync('sha256', root, HKDF_SALT, `vault:${purpose}:${tenantId}`, KEY_BYTES));
      if (root !== this.masterKey) root.fill(0);
      derived.set(purpose, key);
    }
    this.standing.add(tenantId);
    if (this.clearing === null) {
      this.clearing = setImmediate(() => {
        this.standing.clear();
        this.clearing = null;
      });
      this.clearing.unref();
    }
    return key;
  }

  private wrapTenantKey(tenantId: string, key: Buffer): Uint8Array {
    return wrapTenantKeyUnder(this.tenantWrapKey, tenantId, key);
  }

  /** The tenant key, under the master key, or under the previous one while a rotation has not re-wrapped it yet. */
  private unwrapTenantKey(tenantId: string, wrapped: Uint8Array): Buffer {
    const opened = openTenantKey(this.tenantWrapKey, tenantId, wrapped) ?? (this.previousTenantWrapKey && openTenantKey(this.previousTenantWrapKey, tenantId, wrapped));
    if (!opened) throw new Error(`The key of tenant ${tenantId} cannot be unwrapped: is VAULT_MASTER_KEY the one it was sealed with?`);
    return opened;
  }

  private forget(tenantId: string): void {
    this.standing.delete(tenantId);
    for (const key of this.tenantKeys.get(tenantId)?.values() ?? []) key.fill(0);
    this.tenantKeys.delete(tenantId);
  }

  private forgetAll(): void {
    for (const tenantId of [...this.tenantKeys.keys()]) this.forget(tenantId);
  }
}

const tenantAad = (tenantId: string): Buffer => Buffer.from(`vault:tenant-key:${tenantId}`);

function checkEnvelope(tokenId: string, encrypted: EncryptedData): void {
  if (encrypted.v !== 1 || encrypted.alg !== 'AES-256-GCM' || encrypted.key_ref !== tokenId) {
    throw new DataKeyUnavailableError(tokenId, 'the envelope was not sealed for this token.');
  }
}

/**
 * Binding the ciphertext to its tenant, token and purpose makes an envelope copied onto another token, or a sealed mask
 * presented as the data, fail to open; a reactor's sealed configuration (purpose `reactor_configuration`, key
 * `reactor:<id>`) is likewise no token ciphertext, and no token ciphertext is a configuration.
 */
const dataAad = (tenantId: string, tokenId: string, purpose: SealPurpose): Buffer =>
  Buffer.from(`vault:${purpose}:${tenantId}:${tokenId}`);
const wrapAad = (tenantId: string, tokenId: string): Buffer => Buffer.from(`vault:data-key:${tenantId}:${tokenId}`);

const tenantWrapKeyOf = (masterKey: Buffer): Buffer => Buffer.from(hkdfSync('sha256', masterKey, HKDF_SALT, 'vault:tenant-key-wrap', KEY_BYTES));

/** The tenant key `wrapped` holds under `wrapKey`, or null when it does not open with it (another master key). */
const openTenantKey = (wrapKey: Buffer, tenantId: string, wrapped: Uint8Array): Buffer | null => {
  const bytes = Buffer.from(wrapped);
  if (bytes[0] !== TENANT_KEY_FORMAT || bytes.length !== 1 + IV_BYTES + KEY_BYTES + TAG_BYTES) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', wrapKey, bytes.subarray(1, 1 + IV_BYTES))
      .setAAD(tenantAad(tenantId))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return null;
  }
};

const wrapTenantKeyUnder = (wrapKey: Buffer, tenantId: string, key: Buffer): Buffer => {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', wrapKey, iv).setAAD(tenantAad(tenantId));
  const sealed = Buffer.concat([cipher.update(key), cipher.final()]);
  return Buffer.concat([Buffer.of(TENANT_KEY_FORMAT), iv, sealed, cipher.getAuthTag()]);
};

export interface RotationProgress {
  /** Tenant keys re-wrapped by this run. */
  rewrapped: number;
  /** Tenant keys already under the new master key (an earlier, interrupted run did them). */
  already: number;
  /** Tenant keys with nothing to re-wrap: destroyed. */
  skipped: number;
  total: number;
}

/** What a rotation needs of the key store: every tenant key in order, and a re-wrap that keeps a destroyed key destroyed. */
export interface RotatableKeyStore {
  tenantKeysAfter(tenantId: string, limit: number): Array<{ tenantId: string; wrapped: Uint8Array | null; derived: boolean; destroyed: boolean }>;
  countTenantKeys(): number;
  rewrapTenantKeys(rewrapped: ReadonlyArray<{ tenantId: string; wrapped: Uint8Array; previous: Uint8Array }>): number;
  /** Empties the WAL, so that no copy of a key as it was wrapped before stays in it. */
  truncateLog(): void;
}

export class MasterKeyRotationError extends Error {}

/**
 * Re-wraps every tenant key under `masterKey`, opening it with `previousMasterKey`, a batch per transaction. A key that
 * already opens with the new master key is left as it is, so a run killed part-way is resumed by running it again,
 * and the API (given both keys) reads every tenant's key throughout. Afterwards the previous master key opens nothing.
 */
export function rotateMasterKey(
  store: RotatableKeyStore,
  masterKey: Uint8Array,
  previousMasterKey: Uint8Array,
  onProgress: (progress: RotationProgress) => void = () => undefined,
  batch = 200,
): RotationProgress {
  if (masterKey.length !== KEY_BYTES || previousMasterKey.length !== KEY_BYTES) throw new MasterKeyRotationError(`Master keys are ${KEY_BYTES} bytes.`);
  if (Buffer.from(masterKey).equals(Buffer.from(previousMasterKey))) throw new MasterKeyRotationError('VAULT_MASTER_KEY and VAULT_MASTER_KEY_PREVIOUS are the same key.');
  const next = tenantWrapKeyOf(Buffer.from(masterKey));
  const previous = tenantWrapKeyOf(Buffer.from(previousMasterKey));
  const progress: RotationProgress = { rewrapped: 0, already: 0, skipped: 0, total: store.countTenantKeys() };
  let after = '';
  for (;;) {
    const rows = store.tenantKeysAfter(after, batch);
    if (rows.length === 0) break;
    const rewrapped: Array<{ tenantId: string; wrapped: Uint8Array; previous: Uint8Array }> = [];
    for (const row of rows) {
      after = row.tenantId;
      if (row.destroyed || row.wrapped === null) {
        if (row.derived && !row.destroyed) {
          throw new MasterKeyRotationError(
            `Tenant ${row.tenantId} has keys derived from the master key itself (made before tenant keys were stored): a rotation cannot move them.`,
          );
        }
        progress.skipped += 1;
        continue;
      }
      const key = openTenantKey(previous, row.tenantId, row.wrapped);
      if (key === null) {
        if (openTenantKey(next, row.tenantId, row.wrapped) === null) {
          throw new MasterKeyRotationError(`The key of tenant ${row.tenantId} opens with neither master key: is VAULT_MASTER_KEY_PREVIOUS the key it was sealed with?`);
        }
        progress.already += 1;
        continue;
      }
      rewrapped.push({ tenantId: row.tenantId, wrapped: wrapTenantKeyUnder(next, row.tenantId, key), previous: row.wrapped });
      key.fill(0);
    }
    // A key changed (destroyed) since it was read is not written over: the store compares with what was read.
    const written = rewrapped.length === 0 ? 0 : store.rewrapTenantKeys(rewrapped);
    progress.rewrapped += written;
    progress.skipped += rewrapped.length - written;
    onProgress({ ...progress });
  }
  store.truncateLog();
  return progress;
}

