// What someone holding the data dir finds of a deleted tenant: nothing of its private formulas' code (where upstream API
// keys routinely live) nor of its reactors' configuration, in any file, WAL and key store included, and not encoded either.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AesGcmTokenCrypto, loadMasterKey, SqliteKeyStore } from '@vault/adapters';
import { rebuildReadModel, reactorKeyId } from '@vault/application';
import { formulaKeyId, SEALED_FORMULA_FIELD } from '@vault/application';
import { formulaStream, reactorStream, type EncryptedData, type SealPurpose } from '@vault/domain';
import { allProjections, EVENT_STORE, READ_MODELS, type ReadModels } from '@vault/nest';
import { filesUnder, scanStored } from '../support/data-dir';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, type TestApp } from '../support/test-app';

/** The ways a secret's bytes can sit in a file: as is, as UTF-16, in hex, and inside base64 at each of its 3 alignments. */
function encodings(label: string, secret: string): Array<[string, Buffer]> {
  const bytes = Buffer.from(secret);
  const needles: Array<[string, Buffer]> = [
    [`${label} as text`, bytes],
    [`${label} as UTF-16`, Buffer.from(secret, 'utf16le')],
    [`${label} in hex`, Buffer.from(bytes.toString('hex'))],
    [`${label} in upper-case hex`, Buffer.from(bytes.toString('hex').toUpperCase())],
  ];
  for (let offset = 0; offset < 3; offset++) {
    // Preceded by `offset` other bytes, the secret's base64 starts at the next 4-character group; the last group
    // depends on what follows it, so it is left out too.
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64').replace(/=+$/, '');
    needles.push([`${label} in base64 (alignment ${offset})`, Buffer.from(encoded.slice(offset === 0 ? 0 : 4, -4))]);
  }
  return needles;
}

describe('a deleted tenant at rest', () => {
  let test: TestApp;
  const as = (key: string) => asKey(test, key);

  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test.close());

  /**
   * The formula's and the reactor's sealed content in the event log, opened with all the data dir holds besides: the
   * generated master key file and keys.sqlite. An Error where it no longer opens.
   */
  const openFromDisk = async (tenantId: string, formulaId: string, reactorId?: string) => {
    const events = new Database(join(test.dataDir, 'events.sqlite'), { readonly: true });
    const dataOf = (streamId: string, type: string) =>
      JSON.parse((events.prepare('SELECT data FROM events WHERE stream_id = ? AND type = ?').get(streamId, type) as { data: string }).data);
    let formula: EncryptedData;
    let configuration: EncryptedData;
    try {
      formula = dataOf(formulaStream(formulaId), 'ReactorFormulaCreated')[SEALED_FORMULA_FIELD];
      configuration = reactorId === undefined ? formula : dataOf(reactorStream(tenantId, reactorId), 'ReactorCreated').configuration;
    } finally {
      events.close();
    }
    const master = loadMasterKey({ configured: undefined, dataDir: test.dataDir, allowGenerated: true });
    const keys = SqliteKeyStore.open(test.dataDir);
    try {
      const crypto = new AesGcmTokenCrypto(master.key, keys);
      const open = (keyId: string, envelope: EncryptedData, purpose: SealPurpose) =>
        crypto.decrypt(tenantId, keyId, envelope, purpose).catch((error: Error) => error);
      return {
        formula: await open(formulaKeyId(formulaId), formula, 'data'),
        configuration: reactorId === undefined ? null : await open(reactorKeyId(reactorId), configuration, 'reactor_configuration'),
      };
    } finally {
      keys.close();
    }
  };

  it("leaves no file holding its private formula's code or its reactor's configuration, and a rebuild replays around it", async () => {
    const codeSecret = `sk_live_formula_${randomBytes(12).toString('hex')}`;
    const configSecret = `sk_live_config_${randomBytes(12).toString('hex')}`;
    const doomed = await createTenant(test, 'Doomed');
    const user = await createApplication(test, { name: 'reactor user', type: 'private', permissions: ['token:use'] }, doomed.management_key);

    const formula = await as(doomed.management_key).post('/reactor-formulas', {
      name: 'Upstream gateway',
      description: 'Calls the upstream with our own key',
      type: 'private',
      code: `const UPSTREAM_KEY = '${codeSecret}';
module.exports = async function (req) {
  return { raw: { upstream: UPSTREAM_KEY.slice(-6), configured: req.configuration.api_key.slice(-6) } };
};`,
      configuration: [{ name: 'api_key', type: 'string' }],
      request_parameters: [],
    });
    expect(formula.status).toBe(201);
    const reactor = await as(doomed.management_key).post('/reactors', { name: 'Gateway', formula: { id: formula.body.id }, configuration: { api_key: configSecret } });
    expect(reactor.status).toBe(201);

    // Both work while the tenant lives: the formula shows its code, the reactor its configuration, and the code runs with it.
    expect((await as(doomed.management_key).get(`/reactor-formulas/${formula.body.id}`)).body.code).toContain(codeSecret);
    expect((await as(doomed.management_key).get(`/reactors/${reactor.body.id}`)).body.configuration).toEqual({ api_key: configSecret });
    const reacted = await as(user.key).post(`/reactors/${reactor.body.id}/react`, { args: {} });
    expect(reacted.status).toBe(200);
    expect(reacted.body.raw).toEqual({ upstream: codeSecret.slice(-6), configured: configSecret.slice(-6) });

    const needles = [...encodings('formula code', codeSecret), ...encodings('reactor configuration', configSecret)];
    const holders = (secret: string) => filesUnder(test.dataDir).filter((file) => readFileSync(file).includes(Buffer.from(secret)));
    // The scan reads what is stored: the read model holds the code while the formula lives. The event log, kept forever,
    // never does.
    expect(holders(codeSecret).some((file) => file.includes('readmodel'))).toBe(true);
    expect(holders(codeSecret).filter((file) => file.includes('events.sqlite'))).toEqual([]);
    // What the log holds instead opens, for now, with the master key and the key store.
    const sealed = await openFromDisk(doomed.tenant_id, formula.body.id, reactor.body.id);
    expect(sealed.formula).toEqual(expect.stringContaining(codeSecret));
    expect(sealed.configuration).toBe(JSON.stringify({ api_key: configSecret }));

    expect((await as(doomed.management_key).delete('/tenants/self')).status).toBe(204);

    // The tenant's key wrapped both data keys: destroyed, neither opens any more, even with the master key.
    const shredded = await openFromDisk(doomed.tenant_id, formula.body.id, reactor.body.id);
    expect(shredded.formula).toBeInstanceOf(Error);
    expect(shredded.configuration).toBeInstanceOf(Error);

    const afterDelete = scanStored(test.dataDir, test.logs, needles);
    expect(afterDelete.files.some((file) => file.endsWith('events.sqlite-wal'))).toBe(true);
    expect(afterDelete.files.some((file) => file.endsWith('keys.sqlite'))).toBe(true);
    expect(afterDelete.found).toBeNull();

    // Its formula events now open to nothing: a rebuild replays them without failing and brings none of it back.
    const readModels = test.app.get<ReadModels>(READ_MODELS);
    const rebuilt = await rebuildReadModel(test.app.get(EVENT_STORE), readModels.rebuildable, allProjections());
    expect(rebuilt.events).toBeGreaterThan(0);
    const another = await as(BOOTSTRAP_KEY).post('/reactor-formulas', {
      name: 'After the rebuild',
      type: 'private',
      code: 'module.exports = async () => ({ raw: {} });',
      configuration: [],
      request_parameters: [],
    });
    expect(another.status).toBe(201);
    expect((await as(BOOTSTRAP_KEY).get(`/reactor-formulas/${another.body.id}`)).status).toBe(200);
    expect(scanStored(test.dataDir, test.logs, needles).found).toBeNull();
  });

  it("leaves no plaintext copy of a deleted formula's code in the read model, WAL included, and shreds its key", async () => {
    const codeSecret = `sk_live_deleted_${randomBytes(12).toString('hex')}`;
    const tenant = await createTenant(test, 'Keeper');
    const created = await as(tenant.management_key).post('/reactor-formulas', {
      name: 'Short-lived',
      type: 'private',
      code: `module.exports = async () => ({ raw: { key: '${codeSecret}'.length } });`,
      configuration: [],
      request_parameters: [],
    });
    expect(created.status).toBe(201);
    const holders = () => filesUnder(test.dataDir).filter((file) => readFileSync(file).includes(Buffer.from(codeSecret)));
    expect(holders().some((file) => file.includes('readmodel'))).toBe(true);

    expect((await openFromDisk(tenant.tenant_id, created.body.id)).formula).toEqual(expect.stringContaining(codeSecret));

    expect((await as(tenant.management_key).delete(`/reactor-formulas/${created.body.id}`)).status).toBe(204);
    expect(holders()).toEqual([]);
    // The delete answered once the key that sealed the code was destroyed: the log's copy opens no more, though the
    // tenant lives on.
    expect((await openFromDisk(tenant.tenant_id, created.body.id)).formula).toBeInstanceOf(Error);
  });
});
