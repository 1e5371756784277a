import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { base58Encode, DataKeyUnavailableError, type EncryptedData } from '@vault/domain';
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

describe('decryptMany', () => {
  it('answers each item as decrypt would: opened, or the DataKeyUnavailableError for a destroyed key, a moved or altered envelope, another purpose', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `${i}${TOKEN.slice(1)}`);
    const sealed = await Promise.all(ids.map((id) => crypto.encrypt(TENANT, id, `index of ${id}`, 'index')));
    await keys.destroy(TENANT, ids[1]);
    const items = [
      { tokenId: ids[0], encrypted: sealed[0] },
      { tokenId: ids[1], encrypted: sealed[1] },
      { tokenId: ids[2], encrypted: sealed[3] },
      { tokenId: ids[3], encrypted: { ...sealed[3], tag: sealed[4].tag } },
      { tokenId: ids[4], encrypted: await crypto.encrypt(TENANT, ids[4], 'x', 'mask') },
      { tokenId: ids[5], encrypted: sealed[5] },
    ];
    const many = await crypto.decryptMany(TENANT, items, 'index');
    const one = await Promise.all(items.map(({ tokenId, encrypted }) => crypto.decrypt(TENANT, tokenId, encrypted, 'index').catch((e: unknown) => e)));
    expect(many[0]).toBe(`index of ${ids[0]}`);
    expect(many[5]).toBe(`index of ${ids[5]}`);
    for (const i of [1, 2, 3, 4]) expect(many[i]).toBeInstanceOf(DataKeyUnavailableError);
    expect(many.map((r) => (typeof r === 'string' ? r : (r as Error).message))).toEqual(one.map((r) => (typeof r === 'string' ? r : (r as Error).message)));
    // Another tenant's keys are not this tenant's.
    expect(await crypto.decryptMany(OTHER_TENANT, items.slice(0, 1), 'index')).toEqual([expect.any(DataKeyUnavailableError)]);
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

  it('depends on the tenant key, which is random: another data dir with the same master key gives another fingerprint', () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'vault-crypto-'));
    const otherKeys = SqliteKeyStore.open(otherDir);
    try {
      const other = new AesGcmTokenCrypto(masterKey, otherKeys);
      expect(other.fingerprint(TENANT, 'token', 'x')).not.toBe(crypto.fingerprint(TENANT, 'token', 'x'));
    } finally {
      otherKeys.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('needs the master key the tenant key was wrapped with', () => {
    crypto.fingerprint(TENANT, 'token', 'x');
    const other = new AesGcmTokenCrypto(randomBytes(32), keys);
    expect(() => other.fingerprint(TENANT, 'token', 'x')).toThrow(/VAULT_MASTER_KEY/);
  });
});

describe('destroying a tenant key', () => {
  it('shreds every token of the tenant at once, for this process and any other on the same key store, and leaves other tenants alone', async () => {
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    const otherSealed = await crypto.encrypt(TENANT, OTHER_TOKEN, SSN);
    const neighbour = await crypto.encrypt(OTHER_TENANT, TOKEN, SSN);
    // Another process: its own cache of the tenant's keys, filled before the destroy.
    const secondKeys = new SqliteKeyStore((keys as unknown as { db: ConstructorParameters<typeof SqliteKeyStore>[0] }).db);
    const second = new AesGcmTokenCrypto(masterKey, secondKeys);
    expect(await second.decrypt(TENANT, TOKEN, sealed)).toBe(SSN);

    crypto.destroyTenantKey(TENANT);

    for (const instance of [crypto, second]) {
      expect(instance.isTenantKeyDestroyed(TENANT)).toBe(true);
      await expect(instance.decrypt(TENANT, TOKEN, sealed)).rejects.toMatchObject({ kind: 'unauthenticated' });
      await expect(instance.decrypt(TENANT, OTHER_TOKEN, otherSealed)).rejects.toMatchObject({ kind: 'unauthenticated' });
      await expect(instance.encrypt(TENANT, 'e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b', SSN)).rejects.toMatchObject({ kind: 'unauthenticated' });
      expect(() => instance.fingerprint(TENANT, 'token', 'x')).toThrow(/tenant has been deleted/);
      expect(await instance.decrypt(OTHER_TENANT, TOKEN, neighbour)).toBe(SSN);
      expect(instance.isTenantKeyDestroyed(OTHER_TENANT)).toBe(false);
    }
  });

  it('reads the tenant key once per turn of the event loop, and sees another process destroy it on the next turn', async () => {
    const reads = jest.spyOn(keys, 'tenantKey');
    const sealed = await crypto.encrypt(TENANT, TOKEN, SSN);
    // Each use's key is derived once; a turn that derives one reads the record for it.
    crypto.fingerprint(TENANT, 'token', 'first');
    crypto.searchHash(TENANT, 'first');
    await new Promise(setImmediate);
    reads.mockClear();
    for (let i = 0; i < 10; i++) crypto.fingerprint(TENANT, 'token', `value ${i}`);
    crypto.searchHash(TENANT, '6789');
    expect(reads).toHaveBeenCalledTimes(1);
    await new Promise(setImmediate);
    crypto.searchHash(TENANT, '6789');
    expect(reads).toHaveBeenCalledTimes(2);

    // Another process destroys the key between two turns; nothing asks isTenantKeyDestroyed here first.
    const otherProcess = new AesGcmTokenCrypto(masterKey, new SqliteKeyStore((keys as unknown as { db: ConstructorParameters<typeof SqliteKeyStore>[0] }).db));
    otherProcess.destroyTenantKey(TENANT);
    await new Promise(setImmediate);
    expect(() => crypto.fingerprint(TENANT, 'token', 'value 0')).toThrow(/tenant has been deleted/);
    expect(() => crypto.searchHash(TENANT, '6789')).toThrow(/tenant has been deleted/);
    // Refused by the destroyed tenant key, or by the data key the purge has already removed.
    await expect(crypto.decrypt(TENANT, TOKEN, sealed)).rejects.toThrow(/deleted/);
  });

  it('never creates the key again, and removes the tenant’s data keys from the file', async () => {
    for (let i = 0; i < 5; i++) await crypto.encrypt(TENANT, `t${i}`, SSN);
    crypto.destroyTenantKey(TENANT);
    const fresh = new AesGcmTokenCrypto(masterKey, keys);
    expect(() => fresh.searchHash(TENANT, 'x')).toThrow(/tenant has been deleted/);
    for (let i = 0; i < 20 && (await keys.get(TENANT, 't0')) !== null; i++) await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 5; i++) expect(await keys.get(TENANT, `t${i}`)).toBeNull();
  });

  it('keeps tenants of a key store written before tenant keys working, with keys derived from the master key', async () => {
    // A file as the earlier version left it: a data key wrapped by HKDF(master) and no tenant_keys table.
    const old = SqliteKeyStore.open(dir);
    const db = (old as unknown as { db: { exec(sql: string): void } }).db;
    db.exec('DROP TABLE tenant_keys');
    const dataKey = randomBytes(32);
    const legacyWrapKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.from('vault/tenant-keys/v1'), `vault:wrap:${TENANT}`, 32));
    const iv = randomBytes(12);
    const wrap = createCipheriv('aes-256-gcm', legacyWrapKey, iv).setAAD(Buffer.from(`vault:data-key:${TENANT}:${TOKEN}`));
    const sealedKey = Buffer.concat([wrap.update(dataKey), wrap.final()]);
    await old.put(TENANT, TOKEN, Buffer.concat([Buffer.of(1), iv, sealedKey, wrap.getAuthTag()]));
    const dataIv = randomBytes(12);
    const seal = createCipheriv('aes-256-gcm', dataKey, dataIv).setAAD(Buffer.from(`vault:data:${TENANT}:${TOKEN}`));
    const ciphertext = Buffer.concat([seal.update(SSN, 'utf8'), seal.final()]);
    const envelope: EncryptedData = {
      v: 1,
      alg: 'AES-256-GCM',
      key_ref: TOKEN,
      iv: dataIv.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      tag: seal.getAuthTag().toString('base64'),
    };

    const upgraded = SqliteKeyStore.open(dir);
    try {
      expect(upgraded.tenantKey(TENANT)).toMatchObject({ state: 'active', derived: true });
      expect(upgraded.tenantKey(OTHER_TENANT)).toBeNull();
      const reader = new AesGcmTokenCrypto(masterKey, upgraded);
      expect(await reader.decrypt(TENANT, TOKEN, envelope)).toBe(SSN);
      // Its fingerprints are the ones its read models already hold.
      const legacyFingerprintKey = hkdfSync('sha256', masterKey, Buffer.from('vault/tenant-keys/v1'), `vault:fingerprint:${TENANT}`, 32);
      expect(reader.fingerprint(TENANT, 'token', 'x')).toBe(base58Encode(createHmac('sha256', Buffer.from(legacyFingerprintKey)).update('token\0x', 'utf8').digest()));
      // Destroying it removes its data keys, which is what shreds a derived tenant.
      reader.destroyTenantKey(TENANT);
      for (let i = 0; i < 20 && (await upgraded.get(TENANT, TOKEN)) !== null; i++) await new Promise((r) => setTimeout(r, 5));
      expect(await upgraded.get(TENANT, TOKEN)).toBeNull();
    } finally {
      upgraded.close();
      old.close();
    }
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
