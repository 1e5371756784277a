import { randomUUID } from 'node:crypto';
import { createApplication, startTestApp, TestApp, createTenant, asKey } from '../support/test-app';

describe('tokens', () => {
  let test: TestApp;
  let writer: string; // private, no rules: behaves as one mask rule on /
  let revealer: string; // private, rules: reveal /pii/, mask /pci/, redact /general/
  const as = (key: string) => asKey(test, key);
  const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];

  beforeAll(async () => {
    test = await startTestApp();
    writer = (await createApplication(test, { name: 'writer', type: 'private', permissions: ALL })).key;
    revealer = (
      await createApplication(test, {
        name: 'revealer',
        type: 'private',
        permissions: ALL,
        rules: [
          { priority: 1, container: '/pii/', transform: 'reveal', permissions: ALL },
          { priority: 2, container: '/pci/', transform: 'mask', permissions: ALL },
          { priority: 3, container: '/general/', transform: 'redact', permissions: ALL },
        ],
      })
    ).key;
  });
  afterAll(() => test.close());

  it('creates a token of every type with its defaults, and each transform shows data as specified', async () => {
    const ssn = await as(revealer).post('/tokens', { type: 'social_security_number', data: '123-45-6789' });
    expect(ssn.status).toBe(201);
    expect(ssn.body).toMatchObject({
      type: 'social_security_number',
      data: '123-45-6789',
      containers: ['/pii/high/'],
      mask: "{{ data | reveal_last: 4 }}",
      fingerprint_expression: "{{ data | remove: '-' }}",
      search_indexes: ['{{ data }}', "{{ data | remove: '-' }}", '{{ data | last4 }}'],
    });
    expect(ssn.body.fingerprint).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);

    const card = await as(revealer).post('/tokens', { type: 'card_number', data: '4242424242424242' });
    expect(card.status).toBe(201);
    expect(card.body).toMatchObject({ containers: ['/pci/high/'], data: 'XXXXXXXXXXXX4242' });

    const json = await as(revealer).post('/tokens', { type: 'token', data: { name: 'Ada', tags: [1, 2] } });
    expect(json.status).toBe(201);
    expect(json.body.containers).toEqual(['/general/high/']);
    expect(json.body.data).toBeUndefined();

    const ein = await as(writer).post('/tokens', { type: 'employer_id_number', data: '12-3456789' });
    expect(ein.status).toBe(201);
    expect(ein.body.data).toBe('XX-XXX6789');

    const masked = await as(writer).get(`/tokens/${ssn.body.id}`);
    expect(masked.body.data).toBe('XXX-XX-6789');
    expect((await as(revealer).get(`/tokens/${json.body.id}`)).body.data).toBeUndefined();
    expect((await as(revealer).get(`/tokens/${ssn.body.id}`)).body.data).toBe('123-45-6789');
    const maskless = await as(writer).get(`/tokens/${json.body.id}`);
    expect(maskless.status).toBe(200);
    expect('data' in maskless.body).toBe(false);
  });

  it('searches with the Lucene-style query and paginates', async () => {
    const marker = randomUUID();
    const ids: string[] = [];
    for (const data of ['111-22-3333', '444-55-3333', '777-88-9999']) {
      const r = await as(revealer).post('/tokens', { type: 'social_security_number', data, metadata: { batch: marker } });
      ids.push(r.body.id);
    }
    const last4 = await as(revealer).post('/tokens/search', { query: `data:3333 AND metadata.batch:"${marker}"` });
    expect(last4.status).toBe(200);
    expect(last4.body.data.map((t: { id: string }) => t.id)).toEqual([ids[1], ids[0]]);
    expect(last4.body.data.map((t: { data: string }) => t.data)).toEqual(['444-55-3333', '111-22-3333']);
    expect(last4.body.pagination).toEqual({ total_items: 2, page_number: 1, page_size: 20, total_pages: 1 });

    const full = await as(writer).post('/tokens/search', { query: 'data:"777889999"', size: 5 });
    expect(full.body.data.map((t: { id: string }) => t.id)).toEqual([ids[2]]);
    expect(full.body.data[0].data).toBe('XXX-XX-9999');

    const page = await as(writer).post('/tokens/search', { query: `metadata.batch:${marker.toUpperCase()}`, page: 2, size: 2 });
    expect(page.body.data.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    expect(page.body.pagination).toEqual({ total_items: 3, page_number: 2, page_size: 2, total_pages: 2 });
  });

  it.each<[object, string]>([
    [{ query: 'type:token AND' }, 'query'],
    [{ query: 'type:a type:b' }, 'query'],
    [{ query: 'data:*' }, 'query'],
    [{ query: 'colour:blue' }, 'query'],
    [{ query: 'type:' + 'x'.repeat(4092) }, 'query'],
    [{ size: 0 }, 'size'],
    [{ size: 101 }, 'size'],
    [{ page: 0 }, 'page'],
    [{ query: 'type:token', extra: 1 }, 'extra'],
  ])('answers 400 for search body #%# naming its field', async (body, field) => {
    const response = await as(writer).post('/tokens/search', body);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toContain(field);
  });

  it('tells where and what in a bad query', async () => {
    const response = await as(writer).post('/tokens/search', { query: 'type:token AND' });
    expect(response.body.errors.query[0]).toMatch(/position \d+: expected/);
  });

  it('keeps tenants apart: another tenant cannot read, update, delete or find a token', async () => {
    const other = (await createTenant(test, 'other', { type: 'operator', id: 't' }, 'c')).management_key;
    const otherApp = (await createApplication(test, { name: 'other-private', type: 'private', permissions: ALL }, other)).key;
    const mine = await as(writer).post('/tokens', { type: 'token', data: 'secret', search_indexes: ['{{ data }}'] });
    const id = mine.body.id;
    expect((await as(otherApp).get(`/tokens/${id}`)).status).toBe(404);
    expect((await as(otherApp).patch(`/tokens/${id}`, { metadata: { a: 'b' } })).status).toBe(404);
    expect((await as(otherApp).delete(`/tokens/${id}`)).status).toBe(404);
    const found = await as(otherApp).post('/tokens/search', { query: `id:${id} OR data:secret OR type:token` });
    expect(found.body.data).toEqual([]);
    expect(found.body.pagination.total_items).toBe(0);
    expect((await as(writer).get(`/tokens/${id}`)).status).toBe(200);
  });

  it('merge-patches a token: data, metadata keys and containers', async () => {
    const created = await as(revealer).post('/tokens', { type: 'social_security_number', data: '123-45-6789', metadata: { a: '1', b: '2' } });
    const id = created.body.id;
    const patched = await as(revealer).patch(`/tokens/${id}`, { data: '987-65-4321', metadata: { a: null, c: '3' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ data: '987-65-4321', metadata: { b: '2', c: '3' }, modified_by: expect.any(String) });
    expect(patched.body.fingerprint).not.toBe(created.body.fingerprint);
    const search = await as(revealer).post('/tokens/search', { query: `data:4321 AND id:${id}` });
    expect(search.body.data.map((t: { id: string }) => t.id)).toEqual([id]);
    expect((await as(revealer).post('/tokens/search', { query: `data:6789 AND id:${id}` })).body.data).toEqual([]);
    expect((await as(revealer).patch(`/tokens/${id}`, { data: '1' }, 'text/plain')).status).toBe(415);
  });

  it('deduplicates by fingerprint when asked, and rejects a taken id with 409', async () => {
    const first = await as(writer).post('/tokens', { type: 'card_number', data: '4111111111111111' });
    const again = await as(writer).post('/tokens', { type: 'card_number', data: '4111111111111111', deduplicate_token: true });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const third = await as(writer).post('/tokens', { type: 'card_number', data: '4111111111111111' });
    expect(third.status).toBe(201);
    expect(third.body.fingerprint).toBe(first.body.fingerprint);
    const id = randomUUID();
    expect((await as(writer).post('/tokens', { id, type: 'token', data: 1 })).status).toBe(201);
    expect((await as(writer).post('/tokens', { id, type: 'token', data: 2 })).status).toBe(409);
  });

  it.each([
    [{ type: 'card_number', data: '4242424242424241' }, 'data'],
    [{ type: 'card_number', data: '4242424242424242', search_indexes: ['{{ data }}'] }, 'search_indexes'],
    [{ type: 'social_security_number', data: '12-345-6789' }, 'data'],
    [{ type: 'employer_id_number', data: '123-45-6789' }, 'data'],
    [{ type: 'token', data: 'x', search_indexes: ['{{ data.missing }}'] }, 'search_indexes[0]'],
    [{ type: 'token', data: 'x', containers: ['no-slash'] }, 'containers[0]'],
    [{ type: 'token', data: 'x', id: 'not-a-uuid' }, 'id'],
    [{ type: 'robot', data: 'x' }, 'type'],
    [{ type: 'token', data: 'x', expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
    [{ type: 'token', data: 'x', unknown: true }, 'unknown'],
  ])('answers 400 for %j naming %s, without echoing the data', async (body, field) => {
    const response = await as(writer).post('/tokens', body);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toContain(field);
    if (typeof body.data === 'string' && body.data.length > 3) expect(JSON.stringify(response.body)).not.toContain(body.data);
  });

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    expect((await as(writer).get('/tokens/xyz')).status).toBe(400);
    expect((await as(writer).get(`/tokens/${randomUUID()}`)).status).toBe(404);
    expect((await as(writer).delete(`/tokens/${randomUUID()}`)).status).toBe(404);
  });

  it('hides an expired token from reads and search', async () => {
    const created = await as(writer).post('/tokens', { type: 'token', data: 'brief', expires_at: new Date(Date.now() + 1200).toISOString() });
    const id = created.body.id;
    expect((await as(writer).get(`/tokens/${id}`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1400));
    expect((await as(writer).get(`/tokens/${id}`)).status).toBe(404);
    expect((await as(writer).post('/tokens/search', { query: `id:${id}` })).body.pagination.total_items).toBe(0);
  });

  it('answers 403 for a permission the key lacks, and 404 where no rule covers the token', async () => {
    const reader = (await createApplication(test, {
      name: 'pci-only', type: 'private', permissions: ['token:read', 'token:search'],
      rules: [{ priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:search'] }],
    })).key;
    const ssn = await as(writer).post('/tokens', { type: 'social_security_number', data: '222-33-4444' });
    expect((await as(reader).post('/tokens', { type: 'token', data: 1 })).status).toBe(403);
    expect((await as(reader).get(`/tokens/${ssn.body.id}`)).status).toBe(404);
    const search = await as(reader).post('/tokens/search', { query: `id:${ssn.body.id}` });
    expect(search.body.pagination.total_items).toBe(0);
    const all = await as(reader).post('/tokens/search', {});
    expect(all.body.data.length).toBeGreaterThan(0);
    expect(all.body.data.every((t: { containers: string[] }) => t.containers.some((c) => c.startsWith('/pci/')))).toBe(true);
  });
});

describe('expiry sweep', () => {
  it('deletes expired tokens and shreds their keys', async () => {
    const test = await startTestApp({ VAULT_EXPIRY_SWEEP_MS: '200' });
    try {
      const key = (await createApplication(test, { name: 'x', type: 'private', permissions: ['token:create', 'token:read'] })).key;
      const created = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'soon gone', expires_at: new Date(Date.now() + 500).toISOString() });
      const kept = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'stays' });
      const { EVENT_STORE, TOKEN_CRYPTO } = await import('@vault/nest');
      const events = test.app.get(EVENT_STORE);
      const deadline = Date.now() + 5000;
      let deleted: Array<{ type: string; data: unknown }> = [];
      while (Date.now() < deadline) {
        deleted = (await events.readStream(`token-${created.body.tenant_id}_${created.body.id}`)).filter((e: { type: string }) => e.type === 'TokenDeleted');
        if (deleted.length) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(deleted).toHaveLength(1);
      expect(deleted[0].data).toMatchObject({ reason: 'expired', deleted_by: 'expiry-sweep' });
      const [createdEvent] = await events.readStream(`token-${created.body.tenant_id}_${created.body.id}`);
      await expect(test.app.get(TOKEN_CRYPTO).decrypt(created.body.tenant_id, created.body.id, (createdEvent.data as { encrypted: never }).encrypted)).rejects.toThrow(/cannot be decrypted/);
      expect((await test.http().get(`/tokens/${kept.body.id}`).set('SVC-API-KEY', key)).status).toBe(200);
    } finally {
      await test.close();
    }
  });
});
