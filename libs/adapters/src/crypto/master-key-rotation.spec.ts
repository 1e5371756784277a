// Master-key rotation: every tenant key re-wrapped under the new master key, readable throughout by a process given
// both keys, resumable wherever it was killed, and afterwards nothing opens with the old master key.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { EncryptedData } from '@vault/domain';
import { AesGcmTokenCrypto, MasterKeyRotationError, rotateMasterKey, type RotatableKeyStore } from './aes-gcm-token-crypto';
import { SqliteKeyStore } from './sqlite-key-store';

let dir: string;
let keys: SqliteKeyStore;
const oldMaster = randomBytes(32);
const newMaster = randomBytes(32);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vault-rotation-'));
  keys = SqliteKeyStore.open(dir);
});
afterEach(() => {
  keys.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Sealed {
  tenant: string;
  token: string;
  data: string;
  envelope: EncryptedData;
}

/** `tenants` tenants with two tokens each, sealed under the old master key. */
const seal = async (tenants: number): Promise<Sealed[]> => {
  const crypto = new AesGcmTokenCrypto(oldMaster, keys);
  const sealed: Sealed[] = [];
  for (let t = 0; t < tenants; t++) {
    const tenant = randomUUID();
    for (let i = 0; i < 2; i++) {
      const token = randomUUID();
      const data = `secret ${t}-${i} ${randomUUID()}`;
      sealed.push({ tenant, token, data, envelope: await crypto.encrypt(tenant, token, data) });
    }
  }
  return sealed;
};

const opens = async (crypto: AesGcmTokenCrypto, item: Sealed): Promise<boolean> => {
  try {
    return (await crypto.decrypt(item.tenant, item.token, item.envelope)) === item.data;
  } catch {
    return false;
  }
};

/** A store that dies (as a killed process would) at the `killAt`-th batch it is asked to write. */
const dyingAt = (store: SqliteKeyStore, killAt: number): RotatableKeyStore => {
  let writes = 0;
  return {
    tenantKeysAfter: (id, limit) => store.tenantKeysAfter(id, limit),
    countTenantKeys: () => store.countTenantKeys(),
    rewrapTenantKeys: (rows) => {
      if (++writes === killAt) throw new Error('killed');
      return store.rewrapTenantKeys(rows);
    },
    truncateLog: () => store.truncateLog(),
  };
};

it('re-wraps every tenant key: the new master key alone opens every token, the old one none', async () => {
  const sealed = await seal(5);
  const progress = rotateMasterKey(keys, newMaster, oldMaster);
  expect(progress).toEqual({ rewrapped: 5, already: 0, skipped: 0, total: 5 });
  const fresh = new AesGcmTokenCrypto(newMaster, keys);
  const old = new AesGcmTokenCrypto(oldMaster, keys);
  for (const item of sealed) {
    expect(await opens(fresh, item)).toBe(true);
    expect(await opens(old, item)).toBe(false);
  }
  // Run again: nothing left to do.
  expect(rotateMasterKey(keys, newMaster, oldMaster)).toEqual({ rewrapped: 0, already: 5, skipped: 0, total: 5 });
});

it('keeps every token readable, during the rotation, to a process given both keys', async () => {
  const sealed = await seal(4);
  const both = new AesGcmTokenCrypto(newMaster, keys, oldMaster);
  let checked = 0;
  rotateMasterKey(keys, newMaster, oldMaster, () => void checked++, 1);
  expect(checked).toBe(4);
  for (const item of sealed) expect(await opens(both, item)).toBe(true);
  // A tenant created during the rotation is wrapped under the new key.
  const tenant = randomUUID();
  const token = randomUUID();
  const envelope = await both.encrypt(tenant, token, 'late');
  expect(await new AesGcmTokenCrypto(newMaster, keys).decrypt(tenant, token, envelope)).toBe('late');
});

it('resumes wherever it was killed, and ends with every key under the new master key only', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 3 }).chain((batch) => fc.tuple(fc.integer({ min: 1, max: Math.ceil(6 / batch) }), fc.constant(batch))), async ([killAt, batch]) => {
      keys.close();
      rmSync(dir, { recursive: true, force: true });
      dir = mkdtempSync(join(tmpdir(), 'vault-rotation-'));
      keys = SqliteKeyStore.open(dir);
      const sealed = await seal(6);
      expect(() => rotateMasterKey(dyingAt(keys, killAt), newMaster, oldMaster, undefined, batch)).toThrow('killed');
      // The process is gone; a new one runs the rotation again.
      keys.close();
      keys = SqliteKeyStore.open(dir);
      const resumed = rotateMasterKey(keys, newMaster, oldMaster, undefined, batch);
      expect(resumed.rewrapped + resumed.already).toBe(6);
      expect(resumed.already).toBe((killAt - 1) * batch);
      for (const item of sealed) {
        expect(await opens(new AesGcmTokenCrypto(newMaster, keys), item)).toBe(true);
        expect(await opens(new AesGcmTokenCrypto(oldMaster, keys), item)).toBe(false);
      }
    }),
    { numRuns: 12 },
  );
});

it('leaves a deleted tenant deleted, and no old wrapping in the key store files', async () => {
  const sealed = await seal(3);
  const crypto = new AesGcmTokenCrypto(oldMaster, keys);
  crypto.destroyTenantKey(sealed[0].tenant);
  const wrappedBefore = keys.tenantKeysAfter('', 10).flatMap((row) => (row.wrapped ? [Buffer.from(row.wrapped)] : []));
  expect(rotateMasterKey(keys, newMaster, oldMaster)).toEqual({ rewrapped: 2, already: 0, skipped: 1, total: 3 });
  expect(keys.tenantKey(sealed[0].tenant)).toEqual({ state: 'destroyed' });
  const files = readdirSync(dir).filter((name) => name.startsWith('keys.sqlite'));
  for (const file of files) {
    const bytes = readFileSync(join(dir, file));
    for (const wrapped of wrappedBefore) expect(bytes.includes(wrapped)).toBe(false);
  }
});

it('refuses the same key twice, and a previous key that opens nothing', async () => {
  await seal(1);
  expect(() => rotateMasterKey(keys, oldMaster, oldMaster)).toThrow(MasterKeyRotationError);
  expect(() => rotateMasterKey(keys, newMaster, randomBytes(32))).toThrow(/opens with neither master key/);
});
