import { randomUUID } from 'node:crypto';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp, createTenant, asKey } from '../support/test-app';

describe('applications', () => {
  let test: TestApp;
  const as = (key: string) => asKey(test, key);
  const admin = () => as(BOOTSTRAP_KEY);

  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test.close());

  it('creates an application (201) and shows its key once', async () => {
    const response = await admin().post('/applications', {
      name: 'Checkout',
      type: 'private',
      permissions: ['token:read', 'token:search'],
      rules: [{ description: 'masked PCI', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }],
    });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      name: 'Checkout',
      type: 'private',
      permissions: ['token:read', 'token:search'],
      rules: [{ description: 'masked PCI', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }],
      expires_at: null,
    });
    expect(response.body.key).toMatch(/^key_prv_[A-Za-z0-9_-]{43}$/);
    expect(response.body.created_at).toEqual(expect.any(String));
    const fetched = await admin().get(`/applications/${response.body.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.body.key).toBeUndefined();
    expect(fetched.body.key_hash).toBeUndefined();
    expect(fetched.body.name).toBe('Checkout');
  });

  it('authenticates a private application with its own key and refuses it /applications (403)', async () => {
    const app = await createApplication(test, { name: 'reader', type: 'private', permissions: ['token:read'] });
    expect((await as(app.key).get('/permissions')).status).toBe(200);
    const refused = await as(app.key).get('/applications');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ status: 403, type: 'https://httpstatuses.io/403' });
  });

  it('lists applications newest first with the pagination object', async () => {
    const first = await createApplication(test, { name: 'list-a', type: 'public', permissions: ['token:create'] });
    const second = await createApplication(test, { name: 'list-b', type: 'public', permissions: ['token:create'] });
    const page = await admin().get('/applications?page=1&size=2');
    expect(page.status).toBe(200);
    expect(page.body.data.map((a: { id: string }) => a.id)).toEqual([second.id, first.id]);
    expect(page.body.pagination).toEqual({
      total_items: expect.any(Number),
      page_number: 1,
      page_size: 2,
      total_pages: Math.ceil(page.body.pagination.total_items / 2),
    });
    const past = await admin().get('/applications?page=999&size=100');
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination.total_items).toBe(page.body.pagination.total_items);
  });

  it.each([
    ['size=0', 'size'],
    ['size=101', 'size'],
    ['page=0', 'page'],
    ['page=abc', 'page'],
  ])('answers 400 for %s naming %s', async (query, field) => {
    const response = await admin().get(`/applications?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.errors[field]).toBeDefined();
  });

  it('updates with PUT, setting modified_by and modified_at', async () => {
    const app = await createApplication(test, { name: 'before', type: 'public', permissions: ['token:create'] });
    const response = await admin().put(`/applications/${app.id}`, {
      name: 'after',
      type: 'public',
      permissions: ['token:create', 'token:update'],
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'after', permissions: ['token:create', 'token:update'] });
    expect(response.body.modified_at).toEqual(expect.any(String));
    expect(response.body.modified_by).toEqual(expect.any(String));
    expect((await admin().get(`/applications/${app.id}`)).body.name).toBe('after');
  });

  it('regenerates a key: the new one works, the old one is 401 at once', async () => {
    const app = await createApplication(test, { name: 'rotating', type: 'private', permissions: ['token:read'] });
    const response = await admin().post(`/applications/${app.id}/regenerate`);
    expect(response.status).toBe(200);
    expect(response.body.key).not.toBe(app.key);
    expect((await as(app.key).get('/permissions')).status).toBe(401);
    expect((await as(response.body.key).get('/permissions')).status).toBe(200);
  });

  it('deletes (204): the key stops working and the application is 404', async () => {
    const app = await createApplication(test, { name: 'doomed', type: 'private', permissions: ['token:read'] });
    const response = await admin().delete(`/applications/${app.id}`);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect((await admin().get(`/applications/${app.id}`)).status).toBe(404);
    expect((await as(app.key).get('/permissions')).status).toBe(401);
    expect((await admin().delete(`/applications/${app.id}`)).status).toBe(404);
  });

  it('refuses an expiring application once it has expired (401)', async () => {
    const app = await createApplication(test, {
      name: 'short-lived',
      type: 'expiring',
      permissions: ['token:read'],
      expires_at: new Date(Date.now() + 1500).toISOString(),
    });
    expect((await as(app.key).get('/permissions')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const response = await as(app.key).get('/permissions');
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/expired/);
  });

  it.each([
    ['missing', undefined],
    ['unknown', 'key_prv_this-key-was-never-issued-0000000000000000000'],
  ])('answers 401 for a %s key', async (_kind, key) => {
    const request = test.http().get('/applications');
    const response = key ? await request.set('SVC-API-KEY', key) : await request;
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  it('keeps tenants apart: another tenant’s application is a 404', async () => {
    const other = await createTenant(test, 'other');
    const mine = await createApplication(test, { name: 'mine', type: 'public', permissions: ['token:create'] });
    expect((await as(other.management_key).get(`/applications/${mine.id}`)).status).toBe(404);
    expect((await as(other.management_key).delete(`/applications/${mine.id}`)).status).toBe(404);
    const list = await as(other.management_key).get('/applications');
    expect(list.body.data.map((a: { id: string }) => a.id)).not.toContain(mine.id);
  });

  describe('validation', () => {
    const valid = { name: 'x', type: 'private', permissions: ['token:read'] };
    it.each<[string, Record<string, unknown>, string]>([
      ['a permission the type may not hold', { ...valid, type: 'public', permissions: ['token:read'] }, 'permissions[0]'],
      ['an unknown permission', { ...valid, permissions: ['token:read', 'token:fly'] }, 'permissions[1]'],
      ['a missing name', { type: 'private' }, 'name'],
      ['a 201-character name', { ...valid, name: 'n'.repeat(201) }, 'name'],
      ['an unknown type', { ...valid, type: 'robot' }, 'type'],
      ['an expiring application without expires_at', { name: 'e', type: 'expiring', permissions: ['token:read'] }, 'expires_at'],
      ['an expiring application expiring in the past', { name: 'e', type: 'expiring', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      ['expires_at on a private application', { ...valid, expires_at: '2999-01-01T00:00:00Z' }, 'expires_at'],
      [
        'rules on a management application',
        { name: 'm', type: 'management', rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] }] },
        'rules',
      ],
      ['a rule with priority 0', { ...valid, rules: [{ priority: 0, container: '/', transform: 'mask', permissions: ['token:read'] }] }, 'rules[0].priority'],
      [
        'duplicate rule priorities',
        {
          ...valid,
          rules: [
            { priority: 1, container: '/a/', transform: 'mask', permissions: ['token:read'] },
            { priority: 1, container: '/b/', transform: 'mask', permissions: ['token:read'] },
          ],
        },
        'rules[1].priority',
      ],
      ['a rule with an unknown transform', { ...valid, rules: [{ priority: 1, container: '/', transform: 'show', permissions: [] }] }, 'rules[0].transform'],
      ['a rule container that is not a path', { ...valid, rules: [{ priority: 1, container: 'pci', transform: 'mask', permissions: ['token:read'] }] }, 'rules[0].container'],
      [
        'a rule with a non-token permission',
        { ...valid, rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['application:read'] }] },
        'rules[0].permissions[0]',
      ],
      ['an unknown property', { ...valid, colour: 'blue' }, 'colour'],
      ['an unknown rule property', { ...valid, rules: [{ priority: 1, container: '/', transform: 'mask', permissions: [], x: 1 }] }, 'rules[0].x'],
    ])('answers 400 for %s, naming %s', async (_case, body, field) => {
      const response = await admin().post('/applications', body);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(Object.keys(response.body.errors)).toContain(field);
    });

    it('answers 400 for a malformed id and 404 for an unknown one', async () => {
      const bad = await admin().get('/applications/not-a-uuid');
      expect(bad.status).toBe(400);
      expect(bad.body.errors.id).toBeDefined();
      expect((await admin().get(`/applications/${randomUUID()}`)).status).toBe(404);
    });
  });

  it('orders concurrent updates of one application: every update applies, none is lost', async () => {
    const app = await createApplication(test, { name: 'race-0', type: 'public', permissions: ['token:create'] });
    const responses = await Promise.all(
      [1, 2, 3, 4].map((n) => admin().put(`/applications/${app.id}`, { name: `race-${n}`, type: 'public', permissions: ['token:create'] })),
    );
    for (const r of responses) expect([200, 409]).toContain(r.status);
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    const { EVENT_STORE } = await import('@vault/nest');
    const events = await test.app.get(EVENT_STORE).readStream(`application-${app.id}`);
    const updates = events.filter((e: { type: string }) => e.type === 'ApplicationUpdated');
    expect(updates).toHaveLength(responses.filter((r) => r.status === 200).length);
    expect(events.map((e: { revision: bigint }) => e.revision)).toEqual(events.map((_: unknown, i: number) => BigInt(i)));
    const final = (await admin().get(`/applications/${app.id}`)).body.name;
    expect(final).toBe((updates[updates.length - 1].data as { name: string }).name);
  });
  describe('bounded strings, so that no page of applications holds the event loop', () => {
    const aRule = (fields: Record<string, unknown> = {}) => ({ priority: 1, container: '/', transform: 'mask', permissions: ['token:read'], ...fields });

    it('refuses a rule container of about a megabyte with a 400 naming rules[0].container', async () => {
      const container = `/${'a/'.repeat(500_000)}`;
      const response = await admin().post('/applications', { name: 'huge container', type: 'private', rules: [aRule({ container })] });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ 'rules[0].container': ['rules[0].container must be at most 200 characters long'] });
    });

    it('refuses rules whose JSON passes 16,384 characters, naming rules, on create and on update', async () => {
      const rules = Array.from({ length: 100 }, (_, i) => aRule({ priority: i + 1, description: 'd'.repeat(500) }));
      const created = await admin().post('/applications', { name: 'long rules', type: 'private', rules });
      expect(created.status).toBe(400);
      expect(Object.keys(created.body.errors)).toEqual(['rules']);
      const app = await createApplication(test, { name: 'short rules', type: 'private', rules: [aRule()] });
      const updated = await admin().put(`/applications/${app.id}`, { name: 'short rules', type: 'private', rules });
      expect(updated.status).toBe(400);
      expect(Object.keys(updated.body.errors)).toEqual(['rules']);
    });

    it('takes 100 rules with every token permission, and keeps the largest application, as listed, under 18 KB (a page of 100 under 1.8 MB)', async () => {
      const all = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];
      const rules = Array.from({ length: 100 }, (_, i) => aRule({ priority: 1_000_000 + i, transform: 'reveal', container: `/c${i}/`, permissions: all }));
      const app = await createApplication(test, { name: '\u0001'.repeat(200), type: 'private', rules });
      const listed = (await admin().get('/applications?size=100')).body.data.find((a: { id: string }) => a.id === app.id);
      expect(listed.rules).toHaveLength(100);
      expect(JSON.stringify(listed).length).toBeLessThan(18_000);
    });

    it('counts a name in characters, not UTF-16 units: 200 emoji pass, 201 do not', async () => {
      const accepted = await admin().post('/applications', { name: '🔑'.repeat(200), type: 'public', permissions: ['token:create'] });
      expect(accepted.status).toBe(201);
      expect(accepted.body.name).toBe('🔑'.repeat(200));
      const refused = await admin().post('/applications', { name: '🔑'.repeat(201), type: 'public', permissions: ['token:create'] });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual({ name: ['name must be 1 to 200 characters long'] });
    });
  });
});
