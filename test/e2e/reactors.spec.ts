// Reactors CRUD over HTTP: the lifecycle, permissions, tenants, the formula and application rules, configuration
// checks that never quote a value, PUT and PATCH, and the 409 of formula changes that would break a reactor.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const OFFICIAL_DIR = join(__dirname, '../../formulas/official');
const officialFile = (name: string) => JSON.parse(readFileSync(join(OFFICIAL_DIR, name), 'utf8'));
const MASK_EMAIL = officialFile('mask-email.json');
const RESHAPE = officialFile('reshape-arguments.json');

/** A private formula declaring a string, a boolean and a number. */
const aFormula = (overrides: Record<string, unknown> = {}) => ({
  name: 'Payment gateway',
  type: 'private',
  code: 'module.exports = async function (req) { return { raw: { ok: true } }; };',
  configuration: [
    { name: 'api_key', description: 'Upstream key', type: 'string' },
    { name: 'sandbox', type: 'boolean' },
    { name: 'retries', type: 'number' },
  ],
  request_parameters: [{ name: 'card.number', type: 'string' }],
  ...overrides,
});
const SECRET = 'sk_live_Zq9TRXBKMW4hPLDH';
const aConfiguration = (overrides: Record<string, unknown> = {}) => ({ api_key: SECRET, sandbox: false, retries: 3, ...overrides });

describe('reactors', () => {
  let test: TestApp;
  let other: { tenant_id: string; management_key: string };
  let formulaId: string;
  let formulaView: Record<string, unknown>;
  const as = (key: string) => asKey(test, key);
  const admin = () => as(BOOTSTRAP_KEY);
  const importOfficial = (file: unknown) =>
    test.app.get(VaultBus).execute(new ImportOfficialFormulaCommand(file, { type: 'operator', id: 'cli' }, 'import'));
  const createReactor = async (overrides: Record<string, unknown> = {}, key = BOOTSTRAP_KEY) => {
    const response = await as(key).post('/reactors', { name: 'Charge', formula: { id: formulaId }, configuration: aConfiguration(), ...overrides });
    if (response.status !== 201) throw new Error(`create reactor: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  beforeAll(async () => {
    test = await startTestApp();
    other = await createTenant(test, 'other');
    for (const file of [MASK_EMAIL, RESHAPE]) await importOfficial(file);
    const formula = await admin().post('/reactor-formulas', aFormula());
    formulaId = formula.body.id;
    formulaView = formula.body;
  });
  afterAll(() => test.close());

  it('runs the whole lifecycle: create, get, list by name, PUT, PATCH, delete, then 404 everywhere', async () => {
    const created = await admin().post('/reactors', { name: 'Charge card', formula: { id: formulaId }, configuration: aConfiguration() });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: expect.any(String),
      name: 'Charge card',
      formula: formulaView,
      configuration: aConfiguration(),
      created_by: expect.any(String),
      created_at: expect.any(String),
    });
    const id = created.body.id;

    expect((await admin().get(`/reactors/${id}`)).body).toEqual(created.body);
    const listed = await admin().get('/reactors?name=charge');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([created.body]);
    expect(listed.body.pagination).toEqual({ total_items: 1, page_number: 1, page_size: 20, total_pages: 1 });

    const put = await admin().put(`/reactors/${id}`, { name: 'Charge card (live)', configuration: aConfiguration({ sandbox: true }) });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      id,
      name: 'Charge card (live)',
      configuration: aConfiguration({ sandbox: true }),
      created_at: created.body.created_at,
      modified_by: expect.any(String),
      modified_at: expect.any(String),
    });

    const patched = await admin().patch(`/reactors/${id}`, { configuration: { retries: 5 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Charge card (live)', configuration: aConfiguration({ sandbox: true, retries: 5 }) });
    expect((await admin().get(`/reactors/${id}`)).body).toEqual(patched.body);

    const deleted = await admin().delete(`/reactors/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await admin().get(`/reactors/${id}`)).status).toBe(404);
    expect((await admin().put(`/reactors/${id}`, { name: 'x', configuration: aConfiguration() })).status).toBe(404);
    expect((await admin().patch(`/reactors/${id}`, { name: 'x' })).status).toBe(404);
    expect((await admin().delete(`/reactors/${id}`)).status).toBe(404);
    expect((await admin().get('/reactors?name=charge card')).body.data).toEqual([]);
  });

  it('shows the formula as it is now, and works on a verified official formula', async () => {
    const reactor = await createReactor({ name: 'Masker', formula: { id: MASK_EMAIL.id }, configuration: { mask_character: '#', reveal_domain: true } });
    expect(reactor.formula).toEqual((await admin().get(`/reactor-formulas/${MASK_EMAIL.id}`)).body);
    // A change of the formula that keeps its configuration contract is shown by the reactor at once.
    const formula = (await admin().post('/reactor-formulas', aFormula({ name: 'Renamed later' }))).body;
    const mine = await createReactor({ formula: { id: formula.id } });
    expect((await admin().put(`/reactor-formulas/${formula.id}`, aFormula({ name: 'Renamed now', description: 'v2' }))).status).toBe(200);
    expect((await admin().get(`/reactors/${mine.id}`)).body.formula).toMatchObject({ name: 'Renamed now', description: 'v2' });
    await admin().delete(`/reactors/${mine.id}`);
    await admin().delete(`/reactors/${reactor.id}`);
  });

  it('answers 403 on every endpoint to a key without the reactor permission, and reactor:create alone cannot read', async () => {
    const none = await createApplication(test, { name: 'no-reactor', type: 'management', permissions: ['application:read'] });
    const id = randomUUID();
    const responses = await Promise.all([
      as(none.key).post('/reactors', { name: 'x', formula: { id: formulaId }, configuration: aConfiguration() }),
      as(none.key).get('/reactors'),
      as(none.key).get(`/reactors/${id}`),
      as(none.key).put(`/reactors/${id}`, { name: 'x', configuration: aConfiguration() }),
      as(none.key).patch(`/reactors/${id}`, { name: 'x' }),
      as(none.key).delete(`/reactors/${id}`),
    ]);
    expect(responses.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);

    const creator = await createApplication(test, { name: 'creator', type: 'management', permissions: ['reactor:create'] });
    const created = await as(creator.key).post('/reactors', { name: 'by creator', formula: { id: formulaId }, configuration: aConfiguration() });
    expect(created.status).toBe(201);
    expect((await as(creator.key).get(`/reactors/${created.body.id}`)).status).toBe(403);
    expect((await as(creator.key).get('/reactors')).status).toBe(403);
    expect((await as(creator.key).delete(`/reactors/${created.body.id}`)).status).toBe(403);
    await admin().delete(`/reactors/${created.body.id}`);
  });

  it("keeps tenants apart: another tenant's reactor is a 404 and never listed; its private formula is a 400 on formula.id", async () => {
    const reactor = await createReactor({ name: 'Tenant A only' });
    const theirs = as(other.management_key);
    expect((await theirs.get(`/reactors/${reactor.id}`)).status).toBe(404);
    expect((await theirs.put(`/reactors/${reactor.id}`, { name: 'x', configuration: aConfiguration() })).status).toBe(404);
    expect((await theirs.patch(`/reactors/${reactor.id}`, { name: 'x' })).status).toBe(404);
    expect((await theirs.delete(`/reactors/${reactor.id}`)).status).toBe(404);
    expect((await theirs.get('/reactors?size=100')).body.data).toEqual([]);

    const foreign = await theirs.post('/reactors', { name: 'x', formula: { id: formulaId }, configuration: aConfiguration() });
    const unknown = await theirs.post('/reactors', { name: 'x', formula: { id: randomUUID() }, configuration: aConfiguration() });
    expect(foreign.status).toBe(400);
    expect(Object.keys(foreign.body.errors)).toEqual(['formula.id']);
    // Another tenant's private formula and a missing one are told apart by nothing.
    expect(foreign.body.errors).toEqual(unknown.body.errors);
    expect((await admin().get(`/reactors/${reactor.id}`)).body.name).toBe('Tenant A only');
    await admin().delete(`/reactors/${reactor.id}`);
  });

  it('refuses a coming_soon formula with a 400 on formula.id', async () => {
    const response = await admin().post('/reactors', {
      name: 'Too early',
      formula: { id: RESHAPE.id },
      configuration: { mapping: 'a=b', drop_missing: true },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ 'formula.id': [expect.stringContaining('coming soon')] });
  });

  describe('configuration: every declared setting, of its type, and nothing else; values never quoted', () => {
    it.each<[string, Record<string, unknown>, string[]]>([
      ['a missing setting', { api_key: SECRET, sandbox: false }, ['configuration.retries']],
      ['an undeclared setting', aConfiguration({ region: `${SECRET}-eu` }), ['configuration.region']],
      ['a string where a boolean is declared', aConfiguration({ sandbox: SECRET }), ['configuration.sandbox']],
      ['a number as a string', aConfiguration({ retries: '3' }), ['configuration.retries']],
      ['a boolean where a string is declared', aConfiguration({ api_key: true }), ['configuration.api_key']],
      ['an object value', aConfiguration({ api_key: { nested: SECRET } }), ['configuration.api_key']],
      ['several problems at once', { api_key: 7, extra: SECRET }, ['configuration.extra', 'configuration.api_key', 'configuration.sandbox', 'configuration.retries']],
    ])('%s is a 400 naming the setting', async (_case, configuration, fields) => {
      const response = await admin().post('/reactors', { name: 'bad', formula: { id: formulaId }, configuration });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors).sort()).toEqual([...fields].sort());
      expect(response.text).not.toContain('Zq9');
      expect(response.text).not.toContain('"3"');
    });

    it.each<[string, unknown]>([
      ['absent', undefined],
      ['an array', [SECRET]],
      ['a string', SECRET],
    ])('a configuration that is %s is a 400 on configuration', async (_case, configuration) => {
      const response = await admin().post('/reactors', { name: 'bad', formula: { id: formulaId }, configuration });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors)).toEqual(['configuration']);
      expect(response.text).not.toContain('Zq9');
    });

    it.each<[string, string, () => Record<string, unknown>]>([
      ['no name', 'name', () => ({ formula: { id: formulaId }, configuration: aConfiguration() })],
      ['a 201-character name', 'name', () => ({ name: 'n'.repeat(201), formula: { id: formulaId }, configuration: aConfiguration() })],
      ['no formula', 'formula', () => ({ name: 'x', configuration: aConfiguration() })],
      ['a formula id that is no UUID', 'formula.id', () => ({ name: 'x', formula: { id: 'nope' }, configuration: aConfiguration() })],
      ['an unknown property', 'colour', () => ({ name: 'x', formula: { id: formulaId }, configuration: aConfiguration(), colour: 'blue' })],
    ])('%s is a 400 naming %s', async (_case, field, body) => {
      const response = await admin().post('/reactors', body());
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors)).toContain(field);
    });
  });

  describe('application: a private application of the tenant', () => {
    it('records it and returns it as { id }; PATCH with null removes it', async () => {
      const app = await createApplication(test, { name: 'tokenizer', type: 'private', permissions: ['token:create'] });
      const reactor = await createReactor({ application: { id: app.id } });
      expect(reactor.application).toEqual({ id: app.id });
      expect((await admin().get(`/reactors/${reactor.id}`)).body.application).toEqual({ id: app.id });
      const patched = await admin().patch(`/reactors/${reactor.id}`, { application: null });
      expect(patched.status).toBe(200);
      expect(patched.body.application).toBeUndefined();
      expect(patched.body.configuration).toEqual(aConfiguration());
      await admin().delete(`/reactors/${reactor.id}`);
    });

    it.each<[string, () => Promise<string>, string]>([
      ['unknown', async () => randomUUID(), 'no application of this tenant'],
      ['public', async () => (await createApplication(test, { name: 'pub', type: 'public', permissions: ['token:create'] })).id, 'not a public one'],
      ['management', async () => (await createApplication(test, { name: 'mgmt', type: 'management', permissions: ['reactor:read'] })).id, 'not a management one'],
      [
        "another tenant's",
        async () => (await createApplication(test, { name: 'theirs', type: 'private', permissions: ['token:create'] }, other.management_key)).id,
        'no application of this tenant',
      ],
      [
        'deleted',
        async () => {
          const app = await createApplication(test, { name: 'gone', type: 'private', permissions: ['token:create'] });
          expect((await admin().delete(`/applications/${app.id}`)).status).toBe(204);
          return app.id;
        },
        'no application of this tenant',
      ],
    ])('an application that is %s is a 400 on application.id', async (_case, appId, message) => {
      const response = await admin().post('/reactors', { name: 'x', formula: { id: formulaId }, configuration: aConfiguration(), application: { id: await appId() } });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ 'application.id': [expect.stringContaining(message)] });
    });
  });

  describe('PUT and PATCH', () => {
    it('PUT takes the create body without formula: sending formula is a 400 naming it, and the reactor keeps its formula', async () => {
      const reactor = await createReactor();
      const response = await admin().put(`/reactors/${reactor.id}`, { name: 'x', formula: { id: MASK_EMAIL.id }, configuration: aConfiguration() });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors)).toEqual(['formula']);
      const missing = await admin().put(`/reactors/${reactor.id}`, { name: 'x' });
      expect(missing.status).toBe(400);
      expect(Object.keys(missing.body.errors)).toEqual(['configuration']);
      expect((await admin().get(`/reactors/${reactor.id}`)).body).toEqual(reactor);
      await admin().delete(`/reactors/${reactor.id}`);
    });

    it('PATCH merges one level into configuration, obeys the PUT rules, and never quotes a stored value', async () => {
      const reactor = await createReactor();
      const removed = await admin().patch(`/reactors/${reactor.id}`, { configuration: { sandbox: null } });
      expect(removed.status).toBe(400);
      expect(Object.keys(removed.body.errors)).toEqual(['configuration.sandbox']);
      const retyped = await admin().patch(`/reactors/${reactor.id}`, { configuration: { retries: 'many' } });
      expect(Object.keys(retyped.body.errors)).toEqual(['configuration.retries']);
      const extra = await admin().patch(`/reactors/${reactor.id}`, { configuration: { region: 'eu' } });
      expect(Object.keys(extra.body.errors)).toEqual(['configuration.region']);
      const unnamed = await admin().patch(`/reactors/${reactor.id}`, { name: null });
      expect(Object.keys(unnamed.body.errors)).toEqual(['name']);
      for (const response of [removed, retyped, extra, unnamed]) expect(response.text).not.toContain('Zq9');
      const renamed = await admin().patch(`/reactors/${reactor.id}`, { name: 'Renamed' }, 'application/json');
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({ name: 'Renamed', configuration: aConfiguration() });
      const text = await test.http().patch(`/reactors/${reactor.id}`).set('SVC-API-KEY', BOOTSTRAP_KEY).set('Content-Type', 'text/plain').send('{}');
      expect(text.status).toBe(415);
      await admin().delete(`/reactors/${reactor.id}`);
    });
  });

  it('lists by name case-insensitively then id, with the name wildcard, pagination and 400s out of range', async () => {
    const tenant = await createTenant(test, 'lister');
    const key = tenant.management_key;
    const formula = (await as(key).post('/reactor-formulas', aFormula())).body.id;
    for (const name of ['beta', 'Alpha', 'gamma', 'ALPHA two']) await createReactor({ name, formula: { id: formula } }, key);
    const names = async (query: string) => (await as(key).get(`/reactors?${query}`)).body.data.map((r: { name: string }) => r.name);
    expect(await names('')).toEqual(['Alpha', 'ALPHA two', 'beta', 'gamma']);
    expect(await names('name=alpha')).toEqual(['Alpha', 'ALPHA two']);
    expect(await names('name=*a')).toEqual(['Alpha', 'beta', 'gamma']);
    expect(await names('name=alpha*&page=1&size=1')).toEqual(['Alpha']);
    const second = await as(key).get('/reactors?page=2&size=3');
    expect(second.body.pagination).toEqual({ total_items: 4, page_number: 2, page_size: 3, total_pages: 2 });
    expect(second.body.data.map((r: { name: string }) => r.name)).toEqual(['gamma']);
    expect((await as(key).get('/reactors?page=9')).body).toMatchObject({ data: [], pagination: { total_items: 4 } });
    for (const query of ['size=0', 'size=101', 'page=0', 'page=x']) expect((await as(key).get(`/reactors?${query}`)).status).toBe(400);
  });

  it('answers 400 for non-UUID ids', async () => {
    expect((await admin().get('/reactors/123')).status).toBe(400);
    expect((await admin().put('/reactors/123', { name: 'x', configuration: {} })).status).toBe(400);
    expect((await admin().patch('/reactors/123', { name: 'x' })).status).toBe(400);
    expect((await admin().delete('/reactors/123')).status).toBe(400);
  });

  describe('formula changes that would break reactors are 409s naming them', () => {
    it('refuses an update that changes the configuration contract and a delete, until the reactors are gone', async () => {
      const formula = (await admin().post('/reactor-formulas', aFormula({ name: 'Guarded' }))).body.id;
      const reactor = await createReactor({ name: 'Depends on it', formula: { id: formula } });
      const named = `Depends on it (${reactor.id})`;

      const added = await admin().put(`/reactor-formulas/${formula}`, aFormula({ configuration: [...aFormula().configuration, { name: 'region', type: 'string' }] }));
      expect(added.status).toBe(409);
      expect(added.body.errors).toEqual({ reactors: [named] });
      expect(added.body.detail).toContain(named);
      const retyped = await admin().put(`/reactor-formulas/${formula}`, aFormula({ configuration: [{ name: 'api_key', type: 'string' }, { name: 'sandbox', type: 'string' }, { name: 'retries', type: 'number' }] }));
      expect(retyped.status).toBe(409);
      const aliased = await admin().put(`/reator-formula/${formula}`, aFormula({ configuration: [{ name: 'api_key', type: 'string' }] }));
      expect(aliased.status).toBe(409);
      const deleted = await admin().delete(`/reactor-formulas/${formula}`);
      expect(deleted.status).toBe(409);
      expect(deleted.body.errors).toEqual({ reactors: [named] });
      // Nothing was recorded: the formula is as it was.
      expect((await admin().get(`/reactor-formulas/${formula}`)).body.configuration).toEqual(aFormula().configuration.map((c) => ({ description: null, ...c })));

      // Reordered settings and new descriptions fit every reactor.
      const compatible = await admin().put(`/reactor-formulas/${formula}`, aFormula({ code: 'module.exports = async () => ({ raw: { n: 2 } });', configuration: [...aFormula().configuration].reverse() }));
      expect(compatible.status).toBe(200);

      expect((await admin().delete(`/reactors/${reactor.id}`)).status).toBe(204);
      expect((await admin().put(`/reactor-formulas/${formula}`, aFormula({ configuration: [] }))).status).toBe(200);
      expect((await admin().delete(`/reactor-formulas/${formula}`)).status).toBe(204);
    });

    it("answers a caller who may not change the formula as before: 404 for another tenant's, 403 for an official one, never the reactors", async () => {
      const formula = (await admin().post('/reactor-formulas', aFormula({ name: 'Mine' }))).body.id;
      const reactor = await createReactor({ formula: { id: formula } });
      const theirs = as(other.management_key);
      const update = await theirs.put(`/reactor-formulas/${formula}`, aFormula({ configuration: [] }));
      expect(update.status).toBe(404);
      expect((await theirs.delete(`/reactor-formulas/${formula}`)).status).toBe(404);
      expect(update.text).not.toContain(reactor.id);

      const official = await createReactor({ name: 'On the official one', formula: { id: MASK_EMAIL.id }, configuration: { mask_character: '*', reveal_domain: false } });
      const forbidden = await theirs.delete(`/reactor-formulas/${MASK_EMAIL.id}`);
      expect(forbidden.status).toBe(403);
      expect(forbidden.text).not.toContain(official.id);
      await admin().delete(`/reactors/${official.id}`);
      await admin().delete(`/reactors/${reactor.id}`);
    });

    it("refuses the operator's import of an official formula that would break reactors of any tenant, naming them", async () => {
      const file = { ...MASK_EMAIL, id: randomUUID(), name: 'Mask Email (copy)' };
      expect((await importOfficial(file)).result).toBe('created');
      const mine = await createReactor({ name: 'Tenant A masker', formula: { id: file.id }, configuration: { mask_character: '*', reveal_domain: true } });
      const theirs = (
        await as(other.management_key).post('/reactors', { name: 'Tenant B masker', formula: { id: file.id }, configuration: { mask_character: '#', reveal_domain: false } })
      ).body;
      const changed = { ...file, configuration: [{ name: 'mask_character', type: 'string' }] };
      await expect(importOfficial(changed)).rejects.toMatchObject({
        kind: 'conflict',
        errors: { reactors: [`Tenant A masker (${mine.id})`, `Tenant B masker (${theirs.id})`] },
      });
      expect((await importOfficial({ ...file, description: 'Only the description changed' })).result).toBe('updated');
      await admin().delete(`/reactors/${mine.id}`);
      await as(other.management_key).delete(`/reactors/${theirs.id}`);
      expect((await importOfficial(changed)).result).toBe('updated');
    });
  });
});
