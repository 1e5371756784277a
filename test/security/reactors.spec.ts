// A reactor's configuration is a secret (upstream API keys): it never reaches the logs, an error body, the event log or
// a read-model file in plaintext, and once the reactor's DELETE has answered its key is gone, so the sealed copies the
// event log keeps can no longer be opened. The key is the reactor's own: a token with the same id keeps its data.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AesGcmTokenCrypto, loadMasterKey, SqliteKeyStore } from '@vault/adapters';
import { DataKeyUnavailableError, EncryptedData } from '@vault/domain';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';
import { scanStored } from '../support/data-dir';

const CANARIES = {
  created: 'sk_live_canary_created_7Qx2',
  put: 'sk_live_canary_put_9Wv4',
  patched: 'sk_live_canary_patched_3Kp8',
  refusedType: 'sk_live_canary_refused_type_5Hm1',
  refusedExtra: 'sk_live_canary_refused_extra_2Jd6',
  refusedPatch: 'sk_live_canary_refused_patch_8Ln3',
};


const reactorCreatedEnvelope = (dataDir: string, tenantId: string, id: string): EncryptedData => {
  const events = new Database(join(dataDir, 'events.sqlite'), { readonly: true });
  try {
    const row = events.prepare("SELECT data FROM events WHERE stream_id = ? AND type = 'ReactorCreated'").get(`reactor-${tenantId}_${id}`) as { data: string };
    return JSON.parse(row.data).configuration as EncryptedData;
  } finally {
    events.close();
  }
};

describe('reactor configuration at rest', () => {
  let test: TestApp;
  let formulaId: string;
  const admin = () => asKey(test, BOOTSTRAP_KEY);

  beforeAll(async () => {
    test = await startTestApp();
    formulaId = (
      await admin().post('/reactor-formulas', {
        name: 'Gateway',
        type: 'private',
        code: 'module.exports = async () => ({ raw: { n: 1 } });',
        configuration: [
          { name: 'api_key', type: 'string' },
          { name: 'region', type: 'string' },
        ],
        request_parameters: [],
      })
    ).body.id;
  });
  afterAll(() => test.close());

  const create = (name: string, apiKey: string) =>
    admin().post('/reactors', { name, formula: { id: formulaId }, configuration: { api_key: apiKey, region: 'visible-region-value' } });

  it('keeps configuration values out of the logs, error bodies, events and every file of the data dir', async () => {
    const created = await create('visible-reactor-name', CANARIES.created);
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await admin().put(`/reactors/${id}`, { name: 'visible-reactor-name', configuration: { api_key: CANARIES.put, region: 'visible-region-value' } })).status).toBe(200);
    expect((await admin().patch(`/reactors/${id}`, { configuration: { api_key: CANARIES.patched } })).status).toBe(200);
    // Only a reactor:read holder gets it back, opened.
    expect((await admin().get(`/reactors/${id}`)).body.configuration).toEqual({ api_key: CANARIES.patched, region: 'visible-region-value' });

    const refusals = [
      await admin().post('/reactors', { name: 'x', formula: { id: formulaId }, configuration: { api_key: [CANARIES.refusedType], region: 7 } }),
      await admin().post('/reactors', { name: 'x', formula: { id: formulaId }, configuration: { api_key: 'k', region: 'r', extra: CANARIES.refusedExtra } }),
      await admin().patch(`/reactors/${id}`, { configuration: { region: { nested: CANARIES.refusedPatch } } }),
      await admin().patch(`/reactors/${id}`, { configuration: { region: null } }),
    ];
    for (const refusal of refusals) {
      expect(refusal.status).toBe(400);
      for (const canary of Object.values(CANARIES)) expect(refusal.text).not.toContain(canary);
    }
    // The stored value stayed, and the refusal of a PATCH that removed a setting quoted nothing of what is stored.
    expect(refusals[3].body.errors).toEqual({ 'configuration.region': [expect.stringContaining('required')] });

    const needles: Array<[string, Buffer]> = Object.entries(CANARIES).flatMap(([what, canary]) => [
      [`plaintext ${what}`, Buffer.from(canary)],
      [`utf-16 ${what}`, Buffer.from(canary, 'utf16le')],
      [`base64 ${what}`, Buffer.from(Buffer.from(canary).toString('base64').slice(0, 16))],
    ]);
    const scan = scanStored(test.dataDir, test.logs, needles);
    expect(scan.files.some((f) => f.endsWith('events.sqlite'))).toBe(true);
    expect(scan.files.some((f) => f.includes('readmodel'))).toBe(true);
    expect(scan.found).toBeNull();
    // The scan does see stored content: the reactor's name, which is no secret, is there.
    expect(scan.sees('visible-reactor-name')).toBe(true);
  });

  it('shows configuration values only to reactor:read holders: a write answers a caller without it with no configuration', async () => {
    const stored = 'sk_live_canary_stored_only_6Tz1';
    const id = (await create('read-protected', stored)).body.id;
    const updater = (await createApplication(test, { name: 'updater', type: 'management', permissions: ['reactor:update'] })).key;
    const creator = (await createApplication(test, { name: 'creator', type: 'management', permissions: ['reactor:create'] })).key;
    expect((await asKey(test, updater).get(`/reactors/${id}`)).status).toBe(403);
    const patched = await asKey(test, updater).patch(`/reactors/${id}`, { name: 'renamed' });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe('renamed');
    expect(patched.body).not.toHaveProperty('configuration');
    expect(patched.text).not.toContain(stored);
    // Nor the formula's code, which reading the formula would need reactor:read for.
    expect(patched.body.formula).toEqual({ id: formulaId, name: 'Gateway' });
    const unlinked = await asKey(test, updater).patch(`/reactors/${id}`, { application: null });
    expect(unlinked.status).toBe(200);
    expect(unlinked.text).not.toContain(stored);
    const created = await asKey(test, creator).post('/reactors', { name: 'by creator', formula: { id: formulaId }, configuration: { api_key: 'k-1', region: 'r' } });
    expect(created.status).toBe(201);
    expect(created.body).not.toHaveProperty('configuration');
    // A holder of reactor:read gets it in the same answers.
    const reader = await admin().patch(`/reactors/${id}`, { name: 'again' });
    expect(reader.body.configuration).toEqual({ api_key: stored, region: 'visible-region-value' });
  });

  it("destroys the configuration's key once DELETE has answered: the sealed copy in the event log no longer opens", async () => {
    const doomed = (await create('doomed', CANARIES.created)).body;
    const kept = (await create('kept', CANARIES.put)).body;
    // A token that shares the reactor's id (ids are UUIDs in both) keeps its own key.
    const tokens = await createApplication(test, {
      name: 'token-holder',
      type: 'private',
      permissions: ['token:create', 'token:read'],
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    const twin = await asKey(test, tokens.key).post('/tokens', { id: doomed.id, type: 'token', data: 'twin-token-data' });
    expect(twin.status).toBe(201);

    expect((await admin().delete(`/reactors/${doomed.id}`)).status).toBe(204);

    const master = loadMasterKey({ configured: undefined, dataDir: test.dataDir, allowGenerated: true });
    const keys = SqliteKeyStore.open(test.dataDir);
    try {
      const crypto = new AesGcmTokenCrypto(master.key, keys);
      const tenantId = doomed.tenant_id;
      const sealed = reactorCreatedEnvelope(test.dataDir, tenantId, doomed.id);
      expect(sealed.ciphertext).toEqual(expect.any(String));
      expect(await keys.get(tenantId, `reactor:${doomed.id}`)).toBeNull();
      await expect(crypto.decrypt(tenantId, `reactor:${doomed.id}`, sealed, 'reactor_configuration')).rejects.toBeInstanceOf(DataKeyUnavailableError);
      // The same tools open a reactor that still exists, so the failure above is the shredding, not the setup.
      const alive = reactorCreatedEnvelope(test.dataDir, tenantId, kept.id);
      expect(JSON.parse(await crypto.decrypt(tenantId, `reactor:${kept.id}`, alive, 'reactor_configuration'))).toEqual({
        api_key: CANARIES.put,
        region: 'visible-region-value',
      });
    } finally {
      keys.close();
    }
    expect((await asKey(test, tokens.key).get(`/tokens/${doomed.id}`)).body.data).toBe('twin-token-data');
    expect((await admin().get(`/reactors/${doomed.id}`)).status).toBe(404);
  });
});
