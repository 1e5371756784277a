import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp, createTenant, asKey } from '../support/test-app';

const PNG = 'data:image/png;base64,' + readFileSync(join(__dirname, '../../formulas/official/mask-email.json'), 'utf8').match(/base64,([^"]+)/)![1];

const aFormula = (overrides: Record<string, unknown> = {}) => ({
  name: 'Card enricher',
  description: 'Adds the BIN to raw',
  type: 'private',
  icon: PNG,
  code: 'module.exports = async function (req) { return { raw: { bin: String(req.args.card.number).slice(0, 6) } }; };',
  configuration: [{ name: 'region', description: 'where', type: 'string' }],
  request_parameters: [
    { name: 'card.number', description: 'PAN', type: 'string' },
    { name: 'card.expiry', type: 'string', optional: true },
  ],
  ...overrides,
});

describe('reactor formulas', () => {
  let test: TestApp;
  let otherKey: string;
  const as = (key: string) => asKey(test, key);
  const admin = () => as(BOOTSTRAP_KEY);

  beforeAll(async () => {
    test = await startTestApp();
    otherKey = (await createTenant(test, 'other', { type: 'operator', id: 'test' }, 'c')).management_key;
    const bus = test.app.get(VaultBus);
    for (const file of ['mask-email.json', 'tokenize-payload.json']) {
      const parsed = JSON.parse(readFileSync(join(__dirname, '../../formulas/official', file), 'utf8'));
      await bus.execute(new ImportOfficialFormulaCommand(parsed, { type: 'operator', id: 'cli' }, 'import'));
    }
  });
  afterAll(() => test.close());

  it('runs the whole lifecycle: create, list by name, get, update on both paths, delete, then 404', async () => {
    const created = await admin().post('/reactor-formulas', aFormula());
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Card enricher',
      type: 'private',
      status: 'verified',
      icon: PNG,
      configuration: [{ name: 'region', description: 'where', type: 'string' }],
      request_parameters: [
        { name: 'card.number', description: 'PAN', type: 'string', optional: false },
        { name: 'card.expiry', description: null, type: 'string', optional: true },
      ],
      created_by: expect.any(String),
      created_at: expect.any(String),
    });
    expect(created.body.modified_at).toBeUndefined();
    const id = created.body.id;

    const listed = await admin().get('/reactor-formulas?name=enrich');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((f: { id: string }) => f.id)).toEqual([id]);
    expect(listed.body.pagination).toEqual({ total_items: 1, page_number: 1, page_size: 20, total_pages: 1 });

    expect((await admin().get(`/reactor-formulas/${id}`)).body).toEqual(created.body);

    const updated = await admin().put(`/reactor-formulas/${id}`, aFormula({ name: 'Card enricher v2' }));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Card enricher v2', modified_by: expect.any(String), modified_at: expect.any(String) });
    expect(updated.headers.deprecation).toBeUndefined();

    const aliased = await admin().put(`/reator-formula/${id}`, aFormula({ name: 'Card enricher v3' }));
    expect(aliased.status).toBe(200);
    expect(aliased.body.name).toBe('Card enricher v3');
    expect(aliased.headers.deprecation).toBe('true');
    expect(aliased.headers.link).toBe(`</reactor-formulas/${id}>; rel="successor-version"`);

    const deleted = await admin().delete(`/reactor-formulas/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await admin().get(`/reactor-formulas/${id}`)).status).toBe(404);
    expect((await admin().get('/reactor-formulas?name=enricher')).body.data).toEqual([]);
  });

  it('lists the imported official formulas for two different tenants, ordered by name', async () => {
    for (const key of [BOOTSTRAP_KEY, otherKey]) {
      const response = await as(key).get('/reactor-formulas?size=100');
      const official = response.body.data.filter((f: { type: string }) => f.type === 'official').map((f: { name: string }) => f.name);
      expect(official).toEqual(['Mask Email', 'Tokenize Payload']);
    }
  });

  it('supports the name wildcard and pagination, and ignores unknown query parameters', async () => {
    const star = await admin().get('/reactor-formulas?name=mask*&colour=blue');
    expect(star.body.data.map((f: { name: string }) => f.name)).toEqual(['Mask Email']);
    const page = await admin().get('/reactor-formulas?page=2&size=1');
    expect(page.body.pagination).toMatchObject({ page_number: 2, page_size: 1 });
    expect(page.body.data).toHaveLength(1);
  });

  it.each([['size=0'], ['size=101'], ['page=0'], ['page=x']])('answers 400 for %s', async (query) => {
    const response = await admin().get(`/reactor-formulas?${query}`);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toHaveLength(1);
  });

  // SQLite's LIKE reads a pattern only up to its first NUL: `%00Mask` would match every name, never silently.
  it.each([['name=%00'], ['name=%00Mask'], ['name=Ma%00sk'], ['name=mask*%00']])('answers 400 naming name for %s, on both lists', async (query) => {
    for (const path of ['/reactor-formulas', '/reactors']) {
      const response = await admin().get(`${path}?${query}`);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ name: ['name must not contain the NUL character (%00)'] });
    }
  });

  it('keeps private formulas to their tenant: another tenant gets 404 on get, update and delete', async () => {
    const created = await admin().post('/reactor-formulas', aFormula({ name: 'Mine only' }));
    const id = created.body.id;
    expect((await as(otherKey).get(`/reactor-formulas/${id}`)).status).toBe(404);
    expect((await as(otherKey).put(`/reactor-formulas/${id}`, aFormula())).status).toBe(404);
    expect((await as(otherKey).delete(`/reactor-formulas/${id}`)).status).toBe(404);
    expect((await as(otherKey).get('/reactor-formulas?name=Mine')).body.data).toEqual([]);
    expect((await admin().get(`/reactor-formulas/${id}`)).status).toBe(200);
  });

  it('refuses tenant applications writing official formulas (403)', async () => {
    const official = (await admin().get('/reactor-formulas?name=Mask')).body.data[0];
    expect((await admin().post('/reactor-formulas', aFormula({ type: 'official' }))).status).toBe(403);
    expect((await admin().put(`/reactor-formulas/${official.id}`, aFormula({ type: 'official' }))).status).toBe(403);
    expect((await admin().delete(`/reactor-formulas/${official.id}`)).status).toBe(403);
    expect((await admin().get(`/reactor-formulas/${official.id}`)).body.name).toBe('Mask Email');
  });

  it('answers 403 on every endpoint to a key without reactor permissions', async () => {
    const app = await createApplication(test, { name: 'no-reactor', type: 'management', permissions: ['application:read'] });
    const id = randomUUID();
    const responses = await Promise.all([
      as(app.key).post('/reactor-formulas', aFormula()),
      as(app.key).get('/reactor-formulas'),
      as(app.key).get(`/reactor-formulas/${id}`),
      as(app.key).put(`/reactor-formulas/${id}`, aFormula()),
      as(app.key).put(`/reator-formula/${id}`, aFormula()),
      as(app.key).delete(`/reactor-formulas/${id}`),
    ]);
    expect(responses.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
  });

  it('answers 400 for non-UUID ids and 404 for unknown ones, in the same words on every method', async () => {
    expect((await admin().get('/reactor-formulas/123')).status).toBe(400);
    expect((await admin().put('/reactor-formulas/123', aFormula())).status).toBe(400);
    expect((await admin().delete('/reactor-formulas/123')).status).toBe(400);
    const id = randomUUID();
    const answers = [await admin().get(`/reactor-formulas/${id}`), await admin().put(`/reactor-formulas/${id}`, aFormula()), await admin().delete(`/reactor-formulas/${id}`)];
    expect(answers.map((r) => [r.status, r.body.detail])).toEqual(Array(3).fill([404, 'Reactor formula was not found.']));
  });

  it("lets 32 formula writes of one tenant sent at once wait their turn, without refusing another tenant's", async () => {
    const id = (await admin().post('/reactor-formulas', aFormula({ name: 'burst 0' }))).body.id;
    const [creates, updates, others] = await Promise.all([
      Promise.all(Array.from({ length: 16 }, (_, n) => admin().post('/reactor-formulas', aFormula({ name: `burst create ${n}` })))),
      Promise.all(Array.from({ length: 16 }, (_, n) => admin().put(`/reactor-formulas/${id}`, aFormula({ name: `burst update ${n}` })))),
      Promise.all(Array.from({ length: 3 }, (_, n) => as(otherKey).post('/reactor-formulas', aFormula({ name: `other ${n}` })))),
    ]);
    expect(creates.map((r) => r.status)).toEqual(Array(16).fill(201));
    // Updates of one formula race on its stream: a loser past its retries is a 409, never a 503.
    for (const r of updates) expect([200, 409]).toContain(r.status);
    expect(others.map((r) => r.status)).toEqual([201, 201, 201]);
  }, 60_000);

  describe('validation over HTTP', () => {
    it.each<[string, Record<string, unknown>, number, string]>([
      ['a 200-character name', aFormula({ name: 'n'.repeat(200) }), 201, ''],
      ['a 201-character name', aFormula({ name: 'n'.repeat(201) }), 400, 'name'],
      ['50,000 characters of code', aFormula({ code: 'module.exports = async () => ({});' + ' '.repeat(50_000 - 34) }), 201, ''],
      ['50,001 characters of code', aFormula({ code: 'module.exports = async () => ({});' + ' '.repeat(50_001 - 34) }), 400, 'code'],
      ['code that does not compile', aFormula({ code: 'module.exports = async function ( {' }), 422, 'code'],
      ['code that does not export a function', aFormula({ code: 'module.exports = 42;' }), 422, 'code'],
      ['an icon whose bytes are not the declared type', aFormula({ icon: PNG.replace('image/png', 'image/jpeg') }), 400, 'icon'],
      ['a gif icon', aFormula({ icon: 'data:image/gif;base64,R0lGODlhAQABAAAAACw=' }), 400, 'icon'],
      ['a dotted configuration name', aFormula({ configuration: [{ name: 'a.b', type: 'string' }] }), 400, 'configuration[0].name'],
      [
        'a name that is both leaf and parent',
        aFormula({ request_parameters: [{ name: 'a', type: 'string' }, { name: 'a.b', type: 'string' }] }),
        400,
        'request_parameters[1].name',
      ],
      ['a bad parameter type', aFormula({ request_parameters: [{ name: 'a', type: 'date' }] }), 400, 'request_parameters[0].type'],
      ['a non-boolean optional', aFormula({ request_parameters: [{ name: 'a', type: 'string', optional: 'yes' }] }), 400, 'request_parameters[0].optional'],
      ['an unknown property', aFormula({ colour: 'blue' }), 400, 'colour'],
      ['status in the body', aFormula({ status: 'verified' }), 400, 'status'],
      ['a missing code', { ...aFormula(), code: undefined }, 400, 'code'],
    ])('%s', async (_case, body, status, field) => {
      const response = await admin().post('/reactor-formulas', body);
      expect(response.status).toBe(status);
      if (field) expect(Object.keys(response.body.errors)).toContain(field);
    });

    it('answers 415 for a body that is not JSON', async () => {
      const response = await test.http().post('/reactor-formulas').set('SVC-API-KEY', BOOTSTRAP_KEY).set('Content-Type', 'text/plain').send('name=x');
      expect(response.status).toBe(415);
    });

    it('answers 413 for a body over 1 MiB (an icon near the limit cannot travel over HTTP)', async () => {
      const response = await admin().post('/reactor-formulas', aFormula({ icon: 'data:image/png;base64,' + 'A'.repeat(1024 * 1024 + 4) }));
      expect(response.status).toBe(413);
    });
  });

  it('orders concurrent PUTs on one formula: no update is lost', async () => {
    const id = (await admin().post('/reactor-formulas', aFormula({ name: 'race 0' }))).body.id;
    const responses = await Promise.all([1, 2, 3].map((n) => admin().put(`/reactor-formulas/${id}`, aFormula({ name: `race ${n}` }))));
    for (const r of responses) expect([200, 409]).toContain(r.status);
    const winners = responses.filter((r) => r.status === 200);
    expect(winners.length).toBeGreaterThanOrEqual(1);
    const { EVENT_STORE } = await import('@vault/nest');
    const events = await test.app.get(EVENT_STORE).readStream(`formula-${id}`);
    expect(events.filter((e: { type: string }) => e.type === 'ReactorFormulaUpdated')).toHaveLength(winners.length);
    const final = (await admin().get(`/reactor-formulas/${id}`)).body.name;
    expect(final).toBe((events[events.length - 1].data as { name: string }).name);
  });
});
