// Proxies CRUD over HTTP: the key and both transform forms in answers, validation by field, lists, PUT and PATCH, what
// a caller without proxy:read is shown and may change, deletion, tenants, and where the key and configuration never go.
import { randomUUID } from 'node:crypto';
import { scanStored } from '../support/data-dir';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const DESTINATION = 'https://api.example.com/v1/charges';
const ELSEWHERE = 'https://other.example.com/collect';
const SECRET = `sk_live_Zq9${randomUUID().replace(/-/g, '')}`;
const CODE = 'module.exports = async (req) => ({ headers: { ...req.args.headers, authorization: req.configuration.api_key } });';
/** A base58 key of at least 128 bits: 22 characters or more. */
const KEY = /^[1-9A-HJ-NP-Za-km-z]{22,}$/;

const aProxy = (overrides: Record<string, unknown> = {}) => ({
  name: 'Charge cards',
  destination_url: DESTINATION,
  configuration: { api_key: SECRET },
  ...overrides,
});

describe('proxies', () => {
  let test: TestApp;
  let tokenizer: { id: string; key: string }; // a private application proxies tokenize as
  const as = (key: string) => asKey(test, key);
  const admin = () => as(BOOTSTRAP_KEY);
  const create = async (overrides: Record<string, unknown> = {}, key = BOOTSTRAP_KEY) => {
    const response = await as(key).post('/proxies', aProxy(overrides));
    if (response.status !== 201) throw new Error(`create proxy: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  const management = (name: string, permissions: string[], key = BOOTSTRAP_KEY) => createApplication(test, { name, type: 'management', permissions }, key);

  beforeAll(async () => {
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: 'api.example.com,other.example.com', VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    tokenizer = await createApplication(test, { name: 'tokenizer', type: 'private', permissions: ['token:create', 'token:use'] });
  });
  afterAll(() => test.close());

  it('creates a proxy with a random key and shows it, whole, to a proxy:read holder', async () => {
    const created = await admin().post('/proxies', aProxy({ request_transform: { code: CODE } }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: expect.any(String),
      name: 'Charge cards',
      key: expect.stringMatching(KEY),
      destination_url: DESTINATION,
      request_transforms: [{ type: 'code', code: CODE }],
      response_transforms: [],
      request_transform: { code: CODE },
      response_transform: null,
      configuration: { api_key: SECRET },
      require_auth: true,
      created_by: expect.any(String),
      created_at: expect.any(String),
    });
    expect((await admin().get(`/proxies/${created.body.id}`)).body).toEqual(created.body);
  });

  it('never gives two proxies the same key', async () => {
    const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ name: `Keyed ${i}` }).then((proxy) => proxy.key as string)));
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) expect(key).toMatch(KEY);
  });

  it('shows the list form and the single form of transforms in every answer', async () => {
    const transforms = {
      request_transforms: [
        { type: 'tokenize', fields: [{ json_path: '$.card.number', token: { type: 'card_number', containers: ['/pci/'], metadata: { source: 'proxy' } } }] },
        { type: 'code', code: CODE },
      ],
      response_transforms: [{ type: 'mask', fields: ['$.card.number'] }],
    };
    const proxy = await create({ name: 'Both forms', application: { id: tokenizer.id }, ...transforms });
    expect(proxy).toMatchObject({ ...transforms, request_transform: { code: CODE }, response_transform: null, application: { id: tokenizer.id } });
    // Sent back as GET shows it, both forms agreeing, it is the same proxy.
    const { id, tenant_id: _t, key, created_by: _c, created_at: _a, application_id: _i, ...body } = proxy;
    const put = await admin().put(`/proxies/${id}`, body);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ ...transforms, key });
  });

  it.each([
    ['a destination not on the allowed hosts', { destination_url: 'https://evil.example.net/x' }, 'destination_url', /VAULT_PROXY_ALLOWED_HOSTS/],
    ['a destination that is not http(s)', { destination_url: 'ftp://api.example.com/x' }, 'destination_url', /http: or https:/],
    ['credentials in the destination', { destination_url: 'https://user:pw@api.example.com/x' }, 'destination_url', /user name or password/],
    ['a tokenize transform without an application', { request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number' } }] }] }, 'application', /application is required/],
    ['a bad JSON path', { response_transforms: [{ type: 'mask', fields: ['card.number['] }] }, 'response_transforms[0].fields[0]', /response_transforms\[0\]\.fields\[0\]/],
    ['an unknown transform type', { request_transforms: [{ type: 'encrypt' }] }, 'request_transforms[0].type', /type/],
    ['both forms, disagreeing', { request_transform: { code: CODE }, request_transforms: [] }, 'request_transform', /not both/],
    ['a configuration value that is not a string', { configuration: { api_key: 42 } }, 'configuration.api_key', /must be a string/],
    ['a key given by the caller', { key: 'mine' }, 'key', /generated/],
    ['no name', { name: undefined }, 'name', /name/],
  ])('answers 400 naming the field for %s', async (_what, overrides, field, message) => {
    const response = await admin().post('/proxies', aProxy(overrides));
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toContain(field);
    expect(response.body.errors[field].join(' ')).toMatch(message);
    expect(response.text).not.toContain(SECRET);
  });

  it('answers 400 naming destination_url while VAULT_PROXY_ALLOWED_HOSTS is empty: proxying is off', async () => {
    const off = await startTestApp();
    try {
      const response = await asKey(off, BOOTSTRAP_KEY).post('/proxies', aProxy());
      expect(response.status).toBe(400);
      expect(response.body.errors.destination_url[0]).toMatch(/empty: proxying is off/);
    } finally {
      await off.close();
    }
  });

  it('refuses a tokenize transform as an application that is not a private one of the tenant', async () => {
    const manager = await management('not private', ['application:read']);
    const tokenize = { request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number' } }] }] };
    const publicOne = await admin().post('/proxies', aProxy({ ...tokenize, application: { id: manager.id } }));
    expect(publicOne.status).toBe(400);
    expect(publicOne.body.errors['application.id'][0]).toMatch(/private/);
    const missing = await admin().post('/proxies', aProxy({ ...tokenize, application: { id: randomUUID() } }));
    expect(missing.status).toBe(400);
    expect(missing.body.errors['application.id'][0]).toMatch(/no application of this tenant/);
  });

  it('lists by name, paginated, ordered by name', async () => {
    const tag = randomUUID().slice(0, 8);
    for (const name of ['Charlie', 'alpha', 'Bravo']) await create({ name: `${tag} ${name}` });
    const listed = await admin().get(`/proxies?name=${tag}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((proxy: { name: string }) => proxy.name)).toEqual([`${tag} alpha`, `${tag} Bravo`, `${tag} Charlie`]);
    expect(listed.body.data[0]).toMatchObject({ key: expect.stringMatching(KEY), configuration: { api_key: SECRET } });
    expect(listed.body.pagination).toEqual({ total_items: 3, page_number: 1, page_size: 20, total_pages: 1 });
    const second = await admin().get(`/proxies?name=${tag}*&page=2&size=2`);
    expect(second.body.data.map((proxy: { name: string }) => proxy.name)).toEqual([`${tag} Charlie`]);
    expect(second.body.pagination).toEqual({ total_items: 3, page_number: 2, page_size: 2, total_pages: 2 });
    expect((await admin().get(`/proxies?name=${tag}-nothing`)).body.data).toEqual([]);
    expect((await admin().get('/proxies?size=101')).status).toBe(400);
  });

  it('keeps the key through PUT, and PATCH merges', async () => {
    const proxy = await create({ name: 'Mutable', configuration: { api_key: SECRET, region: 'eu' } });
    const put = await admin().put(`/proxies/${proxy.id}`, aProxy({ name: 'Replaced', configuration: { api_key: SECRET, region: 'us' }, require_auth: false }));
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id: proxy.id, key: proxy.key, name: 'Replaced', require_auth: false, created_at: proxy.created_at, modified_at: expect.any(String) });
    expect(put.body.configuration).toEqual({ api_key: SECRET, region: 'us' });

    const named = await admin().patch(`/proxies/${proxy.id}`, { name: 'Patched' });
    expect(named.status).toBe(200);
    expect(named.body).toMatchObject({ name: 'Patched', key: proxy.key, destination_url: DESTINATION, require_auth: false, configuration: { api_key: SECRET, region: 'us' } });

    // configuration merges one level: a null setting is removed, others are kept.
    const merged = await admin().patch(`/proxies/${proxy.id}`, { configuration: { region: null, mode: 'live' }, response_transform: { code: CODE } });
    expect(merged.status).toBe(200);
    expect(merged.body.configuration).toEqual({ api_key: SECRET, mode: 'live' });
    expect(merged.body).toMatchObject({ response_transforms: [{ type: 'code', code: CODE }], response_transform: { code: CODE } });
    const cleared = await admin().patch(`/proxies/${proxy.id}`, { response_transforms: null, require_auth: null });
    expect(cleared.body).toMatchObject({ response_transforms: [], response_transform: null, require_auth: true });
    expect((await admin().get(`/proxies/${proxy.id}`)).body).toEqual(cleared.body);

    const bad = await admin().patch(`/proxies/${proxy.id}`, { destination_url: 'https://evil.example.net/' });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['destination_url']);
    expect((await admin().patch(`/proxies/${proxy.id}`, { name: null })).body.errors).toHaveProperty('name');
  });

  describe('without proxy:read', () => {
    let writer: { id: string; key: string };
    beforeAll(async () => {
      writer = await management('writer', ['proxy:create', 'proxy:update', 'proxy:delete']);
    });
    const HIDDEN = ['key', 'destination_url', 'configuration', 'request_transforms', 'response_transforms', 'request_transform', 'response_transform'];

    it('creates, and is answered without the key, destination, configuration or transforms', async () => {
      const created = await as(writer.key).post('/proxies', aProxy({ request_transform: { code: CODE } }));
      expect(created.status).toBe(201);
      for (const field of HIDDEN) expect(created.body).not.toHaveProperty(field);
      expect(created.body).toMatchObject({ id: expect.any(String), name: 'Charge cards', require_auth: true });
      expect(created.text).not.toContain(SECRET);
      expect(created.text).not.toContain('api.example.com');
      expect((await as(writer.key).get(`/proxies/${created.body.id}`)).status).toBe(403);
      expect((await as(writer.key).get('/proxies')).status).toBe(403);
      const full = (await admin().get(`/proxies/${created.body.id}`)).body;
      expect(full).toMatchObject({ key: expect.stringMatching(KEY), configuration: { api_key: SECRET } });
      expect(created.text).not.toContain(full.key);
    });

    it('may rename, and is answered redacted', async () => {
      const proxy = await create();
      const patched = await as(writer.key).patch(`/proxies/${proxy.id}`, { name: 'Renamed' });
      expect(patched.status).toBe(200);
      expect(patched.body.name).toBe('Renamed');
      for (const field of HIDDEN) expect(patched.body).not.toHaveProperty(field);
    });

    it('may not move the destination, by PATCH or PUT (403 naming destination_url), and the proxy is unchanged', async () => {
      const proxy = await create();
      const patched = await as(writer.key).patch(`/proxies/${proxy.id}`, { destination_url: ELSEWHERE });
      expect(patched.status).toBe(403);
      expect(Object.keys(patched.body.errors)).toEqual(['destination_url']);
      const put = await as(writer.key).put(`/proxies/${proxy.id}`, aProxy({ destination_url: ELSEWHERE, configuration: {} }));
      expect(put.status).toBe(403);
      expect(Object.keys(put.body.errors)).toEqual(['destination_url']);
      expect((await admin().get(`/proxies/${proxy.id}`)).body.destination_url).toBe(DESTINATION);
      // Nor by giving the destination it has: whether a PUT or PATCH is refused must not tell what is stored.
      const same = await as(writer.key).put(`/proxies/${proxy.id}`, aProxy({ name: 'Same place', configuration: { api_key: 'new' } }));
      expect(same.status).toBe(403);
      expect((await as(writer.key).patch(`/proxies/${proxy.id}`, { destination_url: DESTINATION })).status).toBe(403);
    });

    it('may not change what runs unless it removes the whole configuration (403 naming configuration)', async () => {
      const proxy = await create();
      const patched = await as(writer.key).patch(`/proxies/${proxy.id}`, { request_transform: { code: 'module.exports = async (req) => ({ body: req.configuration });' } });
      expect(patched.status).toBe(403);
      expect(Object.keys(patched.body.errors)).toEqual(['configuration']);
      // Restating the configuration as stored is refused too (else a refusal would tell a guess from the secret).
      expect((await as(writer.key).patch(`/proxies/${proxy.id}`, { require_auth: false, configuration: { api_key: SECRET } })).status).toBe(403);
      // Removing the whole configuration keeps no secret: then what runs may change.
      const cleared = await as(writer.key).patch(`/proxies/${proxy.id}`, { require_auth: false, configuration: null });
      expect(cleared.status).toBe(200);
      expect((await admin().get(`/proxies/${proxy.id}`)).body).toMatchObject({ require_auth: false, configuration: {} });
    });

    it('answers 403 to a key holding no proxy permission, on every route', async () => {
      const none = await management('no proxy', ['application:read']);
      const id = randomUUID();
      const statuses = await Promise.all([
        as(none.key).post('/proxies', aProxy()),
        as(none.key).get('/proxies'),
        as(none.key).get(`/proxies/${id}`),
        as(none.key).put(`/proxies/${id}`, aProxy()),
        as(none.key).patch(`/proxies/${id}`, { name: 'x' }),
        as(none.key).delete(`/proxies/${id}`),
      ]);
      expect(statuses.map((response) => response.status)).toEqual([403, 403, 403, 403, 403, 403]);
    });
  });

  it('deletes: 204, then 404 everywhere, and its key invokes nothing any more', async () => {
    const caller = await createApplication(test, { name: 'invoker', type: 'private', permissions: ['token:use'] });
    const proxy = await create({ name: 'Doomed', require_auth: false });
    const deleted = await admin().delete(`/proxies/${proxy.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const after = await Promise.all([
      admin().get(`/proxies/${proxy.id}`),
      admin().put(`/proxies/${proxy.id}`, aProxy()),
      admin().patch(`/proxies/${proxy.id}`, { name: 'x' }),
      admin().delete(`/proxies/${proxy.id}`),
    ]);
    expect(after.map((response) => response.status)).toEqual([404, 404, 404, 404]);
    expect((await admin().get('/proxies?name=Doomed')).body.data).toEqual([]);

    const authenticated = await test.http().post('/proxy').set('SVC-PROXY-KEY', proxy.key).set('SVC-API-KEY', caller.key).send({});
    expect(authenticated.status).toBe(404);
    expect(Object.keys(authenticated.body.errors)).toEqual(['SVC-PROXY-KEY']);
    const anonymous = await test.http().post(`/proxy?svc-proxy-key=${proxy.key}`).send({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['svc-proxy-error']).toBe('true');
  });

  it("answers 404 everywhere for another tenant's proxy, and its key invokes nothing", async () => {
    const other = await createTenant(test, 'other');
    const theirs = await create({ name: 'Theirs', require_auth: true }, other.management_key);
    const caller = await createApplication(test, { name: 'invoker', type: 'private', permissions: ['token:use'] });
    const responses = await Promise.all([
      admin().get(`/proxies/${theirs.id}`),
      admin().put(`/proxies/${theirs.id}`, aProxy()),
      admin().patch(`/proxies/${theirs.id}`, { name: 'x' }),
      admin().delete(`/proxies/${theirs.id}`),
    ]);
    expect(responses.map((response) => response.status)).toEqual([404, 404, 404, 404]);
    expect((await admin().get('/proxies?name=Theirs')).body.data).toEqual([]);
    const invoked = await test.http().get('/proxy').set('SVC-PROXY-KEY', theirs.key).set('SVC-API-KEY', caller.key);
    expect(invoked.status).toBe(404);
    expect((await as(other.management_key).get(`/proxies/${theirs.id}`)).body.name).toBe('Theirs');
  });

  it('keeps the key and configuration out of the audit log, the app logs, the read models and the event log', async () => {
    const marker = `Zq9cfg${randomUUID().replace(/-/g, '')}`;
    const code = `module.exports = async (req) => ({ headers: { 'x-marker': '${marker}-code' } });`;
    const proxy = await create({ name: 'Scanned', configuration: { api_key: marker }, request_transform: { code } });
    await admin().patch(`/proxies/${proxy.id}`, { configuration: { api_key: `${marker}-2` } });
    await admin().get(`/proxies/${proxy.id}`);
    await admin().get('/proxies?name=Scanned');

    const logs = await admin().get(`/logs?entity_id=${proxy.id}`);
    expect(logs.body.data.map((entry: { operation: string }) => entry.operation).sort()).toEqual(['create', 'update']);
    for (const text of [logs.text, (await admin().get('/logs?entity_type=proxy&size=100')).text]) {
      expect(text).not.toContain(marker);
      expect(text).not.toContain(proxy.key);
    }

    const needles = [marker, proxy.key, 'api.example.com/v1/charges'].map((needle) => [needle, Buffer.from(needle)] as const);
    const stored = scanStored(test.dataDir, test.logs, needles);
    expect(stored.found).toBeNull();
    // The scan reads what is stored: the proxy's name is there in plaintext.
    expect(stored.sees('Scanned')).toBe(true);
  });
});
