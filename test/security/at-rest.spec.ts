// What an attacker with the data dir (or the logs) gets: no token plaintext, and nothing at all of a deleted token.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AesGcmTokenCrypto, loadMasterKey, SqliteKeyStore } from '@vault/adapters';
import { DataKeyUnavailableError, EncryptedData } from '@vault/domain';
import { createApplication, startTestApp, TestApp } from '../support/test-app';
import { filesUnder, scanStored } from '../support/data-dir';

const CANARY_SSN = '987-65-4320';
const CANARY_JSON = { note: 'canary-7f3a9c1e-secret-note' };


const sha256 = (s: string) => createHash('sha256').update(s).digest();

describe('data at rest', () => {
  let test: TestApp;
  let key: string;
  const ALL = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete'];

  beforeAll(async () => {
    test = await startTestApp();
    key = (await createApplication(test, { name: 'vault-user', type: 'private', permissions: ALL })).key;
  });
  afterAll(() => test.close());

  it('keeps no plaintext, delimiter-free digits or unkeyed SHA-256 of token data in any file of the data dir or in the logs', async () => {
    const ssn = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'social_security_number', data: CANARY_SSN });
    expect(ssn.status).toBe(201);
    const json = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: CANARY_JSON, search_indexes: ['{{ data.note }}'] });
    expect(json.status).toBe(201);
    const found = await test.http().post('/tokens/search').set('SVC-API-KEY', key).send({ query: `data:"${CANARY_SSN}"` });
    expect(found.body.data.map((t: { id: string }) => t.id)).toEqual([ssn.body.id]);
    await test.http().patch(`/tokens/${ssn.body.id}`).set('SVC-API-KEY', key).set('Content-Type', 'application/merge-patch+json').send('{"metadata":{"k":"visible-metadata-value"}}');

    const needles: Array<[string, Buffer]> = [];
    for (const secret of [CANARY_SSN, CANARY_SSN.replace(/-/g, ''), CANARY_JSON.note]) {
      needles.push([`plaintext ${secret}`, Buffer.from(secret)]);
      needles.push([`utf-16 ${secret}`, Buffer.from(secret, 'utf16le')]);
      needles.push([`sha256 hex of ${secret}`, Buffer.from(sha256(secret).toString('hex'))]);
      needles.push([`sha256 bytes of ${secret}`, sha256(secret)]);
      needles.push([`sha256 base64 of ${secret}`, Buffer.from(sha256(secret).toString('base64'))]);
    }
    needles.push(['sha256 hex of last 4', Buffer.from(sha256('4320').toString('hex'))]);
    // The evaluated mask is derived from the data: sealed like it, never stored in plaintext.
    needles.push(['evaluated mask', Buffer.from('XXX-XX-4320')]);

    const scan = scanStored(test.dataDir, test.logs, needles);
    expect(scan.files.some((f) => f.endsWith('events.sqlite'))).toBe(true);
    expect(scan.files.some((f) => f.includes('readmodel'))).toBe(true);
    expect(scan.found).toBeNull();
    // The scan does see stored content: the (non-sensitive) metadata value is there.
    expect(scan.sees('visible-metadata-value')).toBe(true);
  });

  it('leaves nothing of a deleted token\'s custom mask on disk in plaintext, before or after its deletion', async () => {
    const owner = (
      await createApplication(test, {
        name: 'owner',
        type: 'private',
        permissions: ALL,
        rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }],
      })
    ).key;
    const created = await test.http().post('/tokens').set('SVC-API-KEY', owner).send({ type: 'social_security_number', data: '555-44-3321' });
    const id = created.body.id;
    const patched = await test
      .http()
      .patch(`/tokens/${id}`)
      .set('SVC-API-KEY', owner)
      .set('Content-Type', 'application/merge-patch+json')
      .send(JSON.stringify({ mask: '{{ data | reveal: 5, 0 }}' }));
    expect(patched.status).toBe(200);
    const readerKey = (await createApplication(test, { name: 'masked-reader', type: 'private', permissions: ['token:read'] })).key;
    expect((await test.http().get(`/tokens/${id}`).set('SVC-API-KEY', readerKey)).body.data).toBe('555-44-XXXX');
    const scan = () => {
      for (const file of filesUnder(test.dataDir)) {
        const bytes = readFileSync(file);
        for (const needle of ['555-44-XXXX', '555-44-3321', '555443321']) {
          if (bytes.includes(Buffer.from(needle))) throw new Error(`${needle} found in ${file}`);
        }
      }
    };
    scan();
    expect((await test.http().delete(`/tokens/${id}`).set('SVC-API-KEY', key)).status).toBe(204);
    scan();
  });

  it("leaves no fingerprint or search hash of a deleted token in any file: its data cannot be guessed back from them", async () => {
    const ssn = '771-23-9915';
    const created = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'social_security_number', data: ssn });
    expect(created.status).toBe(201);
    const { id, tenant_id: tenantId, fingerprint } = created.body as { id: string; tenant_id: string; fingerprint: string };

    // What an attacker holding the data dir computes for a guess: the keys come from master.key and keys.sqlite.
    const master = loadMasterKey({ configured: undefined, dataDir: test.dataDir, allowGenerated: true });
    const keys = SqliteKeyStore.open(test.dataDir);
    let hashes: string[];
    try {
      const crypto = new AesGcmTokenCrypto(master.key, keys);
      // The type's default search indexes: as given, without delimiters, last 4.
      hashes = [ssn, ssn.replace(/-/g, ''), ssn.slice(-4)].map((value) => crypto.searchHash(tenantId, value));
    } finally {
      keys.close();
    }
    const needles = [fingerprint, ...hashes].map((value) => Buffer.from(value));
    const holders = (needle: Buffer) => filesUnder(test.dataDir).filter((file) => readFileSync(file).includes(needle));

    // While the token lives, the read model has each of them (its search index); the event log keeps them sealed.
    for (const needle of needles) {
      expect(holders(needle).length).toBeGreaterThan(0);
      expect(holders(needle).filter((file) => !file.includes('readmodel'))).toEqual([]);
    }

    expect((await test.http().delete(`/tokens/${id}`).set('SVC-API-KEY', key)).status).toBe(204);
    for (const needle of needles) expect(holders(needle)).toEqual([]);
  });

  it('shreds a deleted token: its ciphertext in the event log can no longer be decrypted', async () => {
    const created = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'shred me' });
    const id = created.body.id;
    expect((await test.http().delete(`/tokens/${id}`).set('SVC-API-KEY', key)).status).toBe(204);
    expect((await test.http().get(`/tokens/${id}`).set('SVC-API-KEY', key)).status).toBe(404);
    expect((await test.http().post('/tokens/search').set('SVC-API-KEY', key).send({ query: `id:${id}` })).body.pagination.total_items).toBe(0);

    const events = new Database(join(test.dataDir, 'events.sqlite'), { readonly: true });
    const row = events.prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'TokenCreated'").get(`token-${created.body.tenant_id}_${id}`) as { data: string };
    events.close();
    const envelope = JSON.parse(row.data).encrypted as EncryptedData;
    expect(envelope.ciphertext).toEqual(expect.any(String));

    // Everything an attacker holding the data dir has: the master key file, the key store, the event log.
    const master = loadMasterKey({ configured: undefined, dataDir: test.dataDir, allowGenerated: true });
    const keys = SqliteKeyStore.open(test.dataDir);
    try {
      const crypto = new AesGcmTokenCrypto(master.key, keys);
      const tenantId = created.body.tenant_id;
      await expect(crypto.decrypt(tenantId, id, envelope)).rejects.toBeInstanceOf(DataKeyUnavailableError);
      expect(await keys.get(tenantId, id)).toBeNull();
      // A token that still exists decrypts with the same tools, so the failure above is the shredding, not the setup.
      const alive = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'keep me' });
      const db = new Database(join(test.dataDir, 'events.sqlite'), { readonly: true });
      const aliveRow = db.prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'TokenCreated'").get(`token-${alive.body.tenant_id}_${alive.body.id}`) as { data: string };
      db.close();
      expect(await crypto.decrypt(tenantId, alive.body.id, JSON.parse(aliveRow.data).encrypted)).toBe('"keep me"');
    } finally {
      keys.close();
    }
  });
});
