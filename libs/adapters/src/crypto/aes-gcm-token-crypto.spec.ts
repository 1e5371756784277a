import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataKeyUnavailableError, type EncryptedData } from '@vault/domain';
import { AesGcmTokenCrypto } from './aes-gcm-token-crypto';
import { SqliteKeyStore } from './sqlite-key-store';

const TENANT = '6f1c2a9e-0d4b-4c8e-9a1f-3b5d7e9f1a2c';
const OTHER_TENANT = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const TOKEN = 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f';
const OTHER_TOKEN = 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a';
const SSN = '123-45-6789';

let dir: string;
let keys: SqliteKeyStore;
let crypto: AesGcmTokenCrypto;
const masterKey = randomBytes(32);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vault-crypto-'));
  keys = SqliteKeyStore.open(dir);
  crypto = new AesGcmTokenCrypto(masterKey, keys);
});
afterEach(() => {
  keys.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('encrypt and decrypt', () => {
  it('round-trips the data, including non-ASCII text', async () => {
    const plaintext = JSON.stringify({ name: 'Zoë Ünïcode 🔐', ssn: SSN });
    const sealed = await crypto.encrypt(TENANT, TOKEN, plaintext);
    expect(await crypto.decrypt(TENANT, TOKEN, sealed)).toBe(plaintext);
  });

  it('produces an envelope of base64 fields that holds neither the data nor the data key', async () => {
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    expect(sealed).toEqual({
      v: 1,
      alg: 'AES-256-GCM',
      key_ref: TOKEN,
      iv: expect.stringMatching(/^[A-Za-z0-9+/]{16}$/),
      ciphertext: expect.stringMatching(/^[A-Za-z0-9+/=]+$/),
      tag: expect.stringMatching(/^[A-Za-z0-9+/]{22}==$/),
    });
    expect(JSON.stringify(sealed)).not.toContain(SSN);
    const wrappedKey = Buffer.from((await keys.get(TENANT, TOKEN))!).toString('base64');
    expect(JSON.stringify(sealed)).not.toContain(wrappedKey);
  });

  it('seals the same data differently each time (fresh IV), and updates keep the token\'s one data key', async () => {
    const first = await crypto.encrypt(TENANT, TOKEN, SSN);
    const keyAfterFirst = await keys.get(TENANT, TOKEN);
    const second = await crypto.encrypt(TENANT, TOKEN, SSN);
    expect(second.ciphertext === first.ciphertext && second.iv === first.iv).toBe(false);
    expect(await keys.get(TENANT, TOKEN)).toEqual(keyAfterFirst);
    expect(await crypto.decrypt(TENANT, TOKEN, first)).toBe(SSN);
  });

  it('refuses an envelope moved to another token or tenant, or altered', async () => {
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    await crypto.encrypt(TENANT, OTHER_TOKEN, 'other');
    await expect(crypto.decrypt(TENANT, OTHER_TOKEN, { ...sealed, key_ref: OTHER_TOKEN })).rejects.toBeInstanceOf(
      DataKeyUnavailableError,
    );
    await expect(crypto.decrypt(OTHER_TENANT, TOKEN, sealed)).rejects.toBeInstanceOf(DataKeyUnavailableError);
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] ^= 1;
    const altered: EncryptedData = { ...sealed, ciphertext: flipped.toString('base64') };
    await expect(crypto.decrypt(TENANT, TOKEN, altered)).rejects.toBeInstanceOf(DataKeyUnavailableError);
  });

  it('binds an envelope to its purpose: a sealed reactor configuration never opens as token data or a mask, nor they as it', async () => {
    const reactorKey = `reactor:${TOKEN}`;
    const configuration = await crypto.encrypt(TENANT, reactorKey, '{"api_key":"sk_live"}', 'reactor_configuration');
    expect(await crypto.decrypt(TENANT, reactorKey, configuration, 'reactor_configuration')).toBe('{"api_key":"sk_live"}');
    for (const purpose of ['data', 'mask'] as const) {
      await expect(crypto.decrypt(TENANT, reactorKey, configuration, purpose)).rejects.toBeInstanceOf(DataKeyUnavailableError);
    }
    const data = await crypto.encrypt(TENANT, TOKEN, SSN);
    await expect(crypto.decrypt(TENANT, TOKEN, data, 'reactor_configuration')).rejects.toBeInstanceOf(DataKeyUnavailableError);
    // The reactor's key is its own: destroying it leaves the token with the same UUID readable.
    await keys.destroy(TENANT, reactorKey);
    expect(await crypto.decrypt(TENANT, TOKEN, data)).toBe(SSN);
    await expect(crypto.decrypt(TENANT, reactorKey, configuration, 'reactor_configuration')).rejects.toBeInstanceOf(DataKeyUnavailableError);
  });

  it('cannot open data sealed under another master key', async () => {
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    const otherMaster = new AesGcmTokenCrypto(randomBytes(32), keys);
    await expect(otherMaster.decrypt(TENANT, TOKEN, sealed)).rejects.toThrow(/VAULT_MASTER_KEY/);
  });
});

describe('crypto-shredding', () => {
  it('makes every copy of the ciphertext undecryptable once the data key is destroyed', async () => {
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    await keys.destroy(TENANT, TOKEN);
    await expect(crypto.decrypt(TENANT, TOKEN, sealed)).rejects.toBeInstanceOf(DataKeyUnavailableError);
    // A new process with the same master key and key store is no better off.
    const restarted = new AesGcmTokenCrypto(masterKey, keys);
    await expect(restarted.decrypt(TENANT, TOKEN, sealed)).rejects.toThrow(/data key does not exist/);
  });

  it('leaves nothing on disk that, with the master key, opens the ciphertext', async () => {
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    const wrapped = Buffer.from((await keys.get(TENANT, TOKEN))!);
    await keys.destroy(TENANT, TOKEN);
    const disk = Buffer.concat(
      ['keys.sqlite', 'keys.sqlite-wal'].map((f) => join(dir, f)).filter(existsSync).map((f) => readFileSync(f)),
    );
    expect(disk.includes(wrapped)).toBe(false);
    expect(JSON.stringify(sealed)).not.toContain(SSN);
  });

  it('does not touch other tokens\' keys', async () => {
    await crypto.encrypt(TENANT, TOKEN, SSN);
    const kept = await crypto.encrypt(TENANT, OTHER_TOKEN, 'kept');
    await keys.destroy(TENANT, TOKEN);
    expect(await crypto.decrypt(TENANT, OTHER_TOKEN, kept)).toBe('kept');
  });
});

describe('fingerprint', () => {
  it('is the same for the same tenant, type and value, and base58', () => {
    const a = crypto.fingerprint(TENANT, 'social_security_number', '123456789');
    expect(crypto.fingerprint(TENANT, 'social_security_number', '123456789')).toBe(a);
    expect(new AesGcmTokenCrypto(masterKey, keys).fingerprint(TENANT, 'social_security_number', '123456789')).toBe(a);
    expect(a).toMatch(/^[1-9A-HJ-NP-Za-km-z]{40,44}$/);
  });

  it('differs across tenants, types and values', () => {
    const a = crypto.fingerprint(TENANT, 'social_security_number', '123456789');
    expect(crypto.fingerprint(OTHER_TENANT, 'social_security_number', '123456789')).not.toBe(a);
    expect(crypto.fingerprint(TENANT, 'employer_id_number', '123456789')).not.toBe(a);
    expect(crypto.fingerprint(TENANT, 'social_security_number', '123456780')).not.toBe(a);
  });

  it('separates type from value, so no type/value split collides with another', () => {
    expect(crypto.fingerprint(TENANT, 'token', 'a')).not.toBe(crypto.fingerprint(TENANT, 'token', '\0a'));
  });

  it('depends on the master key', () => {
    const other = new AesGcmTokenCrypto(randomBytes(32), keys);
    expect(other.fingerprint(TENANT, 'token', 'x')).not.toBe(crypto.fingerprint(TENANT, 'token', 'x'));
  });
});

describe('searchHash', () => {
  it('is stable per tenant, differs across tenants and from the fingerprint key, and is lower-case hex', () => {
    const hash = crypto.searchHash(TENANT, '6789');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(crypto.searchHash(TENANT, '6789')).toBe(hash);
    expect(crypto.searchHash(OTHER_TENANT, '6789')).not.toBe(hash);
    expect(crypto.searchHash(TENANT, '6788')).not.toBe(hash);
  });
});
