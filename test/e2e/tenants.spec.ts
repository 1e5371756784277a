// /tenants/self ("Tenants" in the API guide): read and rename the caller's tenant, and delete it with everything in it. After
// the delete has answered, every key of the tenant is a 401 (a request in flight too), its documents are gone from the
// read model, its tokens cannot be decrypted from the data dir with the master key, and other tenants are untouched.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AesGcmTokenCrypto, loadMasterKey, SqliteKeyStore } from '@vault/adapters';
import type { EncryptedData } from '@vault/domain';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete', 'token:use'];
const reveal = { permissions: TOKEN_PERMISSIONS, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: TOKEN_PERMISSIONS }] };

describe('/tenants/self', () => {
  let test: TestApp;
  const as = (key: string) => asKey(test, key);

  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test.close());

  /** Every TokenCreated envelope of the tenant in the event log, as someone holding the data dir reads them. */
  const envelopesOf = (tenantId: string): Array<{ id: string; envelope: EncryptedData }> => {
    const db = new Database(join(test.dataDir, 'events.sqlite'), { readonly: true });
    try {
      const rows = db.prepare("SELECT stream_id, data FROM events WHERE type = 'TokenCreated' AND stream_id LIKE ?").all(`token-${tenantId}_%`) as Array<{
        stream_id: string;
        data: string;
      }>;
      return rows.map((row) => ({ id: row.stream_id.slice(`token-${tenantId}_`.length), envelope: JSON.parse(row.data).encrypted }));
    } finally {
      db.close();
    }
  };

  /** How many of the tenant's tokens open with the master key, the key store and the event log (what the disk holds). */
  const decryptable = async (tenantId: string): Promise<{ opened: number; total: number }> => {
    const master = loadMasterKey({ configured: undefined, dataDir: test.dataDir, allowGenerated: true });
    const keys = SqliteKeyStore.open(test.dataDir);
    try {
      const crypto = new AesGcmTokenCrypto(master.key, keys);
      const envelopes = envelopesOf(tenantId);
      let opened = 0;
      for (const { id, envelope } of envelopes) {
        try {
          await crypto.decrypt(tenantId, id, envelope);
          opened++;
        } catch {
          // shredded
        }
      }
      return { opened, total: envelopes.length };
    } finally {
      keys.close();
    }
  };

  const readModelRowsOf = (tenantId: string): Record<string, number> => {
    const dir = join(test.dataDir, 'readmodel');
    const db = new Database(join(dir, readFileSync(join(dir, 'CURRENT'), 'utf8').trim()), { readonly: true });
    try {
      const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE tenant_id = ?`).get(tenantId) as { n: number }).n;
      return { tokens: count('tokens'), token_terms: count('token_terms'), applications: count('applications'), reactors: count('reactors'), formulas: count('formulas') };
    } finally {
      db.close();
    }
  };

  it('reads the tenant and renames it, recording who renamed it', async () => {
    const tenant = await createTenant(test, 'Acme');
    const self = await as(tenant.management_key).get('/tenants/self');
    expect(self.status).toBe(200);
    expect(self.body).toEqual({ id: tenant.tenant_id, name: 'Acme', created_by: 'test', created_at: expect.any(String) });
    const admin = await createApplication(test, { name: 'admin', type: 'management', permissions: ['tenant:read', 'tenant:update'] }, tenant.management_key);
    const renamed = await as(admin.key).put('/tenants/self', { name: '  Acme Europe ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: tenant.tenant_id, name: 'Acme Europe', modified_by: admin.id, modified_at: expect.any(String) });
    expect((await as(tenant.management_key).get('/tenants/self')).body).toEqual(renamed.body);
  });

  it('counts a name in characters, not UTF-16 units: 200 emoji pass, 201 do not', async () => {
    const tenant = await createTenant(test, 'Emoji');
    const renamed = await as(tenant.management_key).put('/tenants/self', { name: '🔑'.repeat(200) });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('🔑'.repeat(200));
    const refused = await as(tenant.management_key).put('/tenants/self', { name: '🔑'.repeat(201) });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors)).toEqual(['name']);
  });

  it('answers bad names and unknown properties with a 400 naming the field, and callers without the permission with a 403', async () => {
    const tenant = await createTenant(test, 'Strict');
    for (const [body, field] of [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 42 }, 'name'],
      [{}, 'name'],
      [{ name: 'ok', id: randomUUID() }, 'id'],
    ] as const) {
      const response = await as(tenant.management_key).put('/tenants/self', body);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors)).toContain(field);
    }
    const reader = await createApplication(test, { name: 'reader', type: 'management', permissions: ['tenant:read'] }, tenant.management_key);
    expect((await as(reader.key).put('/tenants/self', { name: 'Taken' })).status).toBe(403);
    expect((await as(reader.key).delete('/tenants/self')).status).toBe(403);
    const app = await createApplication(test, { name: 'app', type: 'private', permissions: ['token:read'] }, tenant.management_key);
    expect((await as(app.key).get('/tenants/self')).status).toBe(403);
    expect((await as(tenant.management_key).get('/tenants/self')).body.name).toBe('Strict');
  });

  it('deletes the tenant with everything in it: its keys answer 401, its documents and its data are gone, other tenants are untouched', async () => {
    const doomed = await createTenant(test, 'Doomed');
    const app = await createApplication(test, { name: 'app', type: 'private', ...reveal }, doomed.management_key);
    const ids: string[] = [];
    for (const data of ['123-45-6789', '987-65-4321']) {
      const created = await as(app.key).post('/tokens', { type: 'social_security_number', data, containers: ['/people/'] });
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }
    const formula = await as(doomed.management_key).post('/reactor-formulas', {
      name: 'Echo',
      type: 'private',
      code: 'module.exports = async (req) => ({ raw: req.args });',
      configuration: [{ name: 'api_key', type: 'string' }],
      request_parameters: [],
    });
    const reactor = await as(doomed.management_key).post('/reactors', { name: 'Echo', formula: { id: formula.body.id }, configuration: { api_key: 'sk_doomed_0123456789' } });
    expect(reactor.status).toBe(201);

    // A neighbour with a token of the same data and the same custom id.
    const neighbour = await createApplication(test, { name: 'neighbour', type: 'private', ...reveal }, BOOTSTRAP_KEY);
    const kept = await as(neighbour.key).post('/tokens', { id: ids[0], type: 'social_security_number', data: '123-45-6789' });
    expect(kept.status).toBe(201);

    expect(await decryptable(doomed.tenant_id)).toEqual({ opened: 2, total: 2 });
    expect(readModelRowsOf(doomed.tenant_id)).toMatchObject({ tokens: 2, applications: 2, reactors: 1, formulas: 1 });

    const deleted = await as(doomed.management_key).delete('/tenants/self');
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');

    for (const key of [doomed.management_key, app.key]) {
      for (const response of [await as(key).get('/permissions'), await as(key).get(`/tokens/${ids[0]}`), await as(key).get('/tenants/self')]) {
        expect(response.status).toBe(401);
      }
    }
    expect(readModelRowsOf(doomed.tenant_id)).toEqual({ tokens: 0, token_terms: 0, applications: 0, reactors: 0, formulas: 0 });
    expect(await decryptable(doomed.tenant_id)).toEqual({ opened: 0, total: 2 });

    const stillThere = await as(neighbour.key).get(`/tokens/${ids[0]}`);
    expect(stillThere.status).toBe(200);
    expect(stillThere.body.data).toBe('123-45-6789');
    expect((await as(BOOTSTRAP_KEY).get('/tenants/self')).status).toBe(200);
    expect(await decryptable(kept.body.tenant_id)).toMatchObject({ opened: expect.any(Number) });
    expect((await decryptable(kept.body.tenant_id)).opened).toBe((await decryptable(kept.body.tenant_id)).total);
  });

  it('answers 401 to a request of the tenant that was in flight when the delete became durable', async () => {
    const tenant = await createTenant(test, 'In flight');
    const app = await createApplication(test, { name: 'user', type: 'private', ...reveal }, tenant.management_key);
    const formula = await as(tenant.management_key).post('/reactor-formulas', {
      name: 'Slow',
      type: 'private',
      // Busy for 1.5 s in its isolate (the API's event loop stays free), then answers.
      code: 'module.exports = async () => { const until = Date.now() + 1500; while (Date.now() < until) {} return { raw: "late" }; };',
      configuration: [],
      request_parameters: [],
    });
    const reactor = await as(tenant.management_key).post('/reactors', { name: 'Slow', formula: { id: formula.body.id }, configuration: {} });
    expect(reactor.status).toBe(201);
    // Supertest sends when awaited: start it now.
    const inFlight = as(app.key).post(`/reactors/${reactor.body.id}/react`, { args: {} }).then((r) => r);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await as(tenant.management_key).delete('/tenants/self')).status).toBe(204);
    const answer = await inFlight;
    expect(answer.status).toBe(401);
    expect(JSON.stringify(answer.body)).not.toContain('late');
  });

  it('leaves no token of the tenant decryptable when it is deleted during a burst of writes', async () => {
    const tenant = await createTenant(test, 'Busy');
    const app = await createApplication(test, { name: 'writer', type: 'private', ...reveal }, tenant.management_key);
    const statuses: number[] = [];
    let deletedAt = Number.POSITIVE_INFINITY;
    const writer = async (n: number) => {
      for (let i = 0; i < 15; i++) {
        const response = await as(app.key).post('/tokens', { type: 'token', data: `burst-${n}-${i}-secret` });
        statuses.push(response.status);
      }
    };
    const writers = Promise.all([0, 1, 2, 3, 4, 5].map(writer));
    await new Promise((resolve) => setTimeout(resolve, 150));
    const deleted = await as(tenant.management_key).delete('/tenants/self');
    deletedAt = Date.now();
    expect(deleted.status).toBe(204);
    await writers;
    expect(deletedAt).toBeLessThan(Number.POSITIVE_INFINITY);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 201 || s === 401)).toBe(true);
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThan(0);
    // Give the projector a moment to apply anything appended in flight, then look at the disk.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { opened, total } = await decryptable(tenant.tenant_id);
    expect(total).toBeGreaterThan(0);
    expect(opened).toBe(0);
    expect(readModelRowsOf(tenant.tenant_id)).toEqual({ tokens: 0, token_terms: 0, applications: 0, reactors: 0, formulas: 0 });
  });

  it('answers a second DELETE with the deleted tenant’s key with a 401', async () => {
    const tenant = await createTenant(test, 'Twice');
    expect((await as(tenant.management_key).delete('/tenants/self')).status).toBe(204);
    expect((await as(tenant.management_key).delete('/tenants/self')).status).toBe(401);
  });
});
