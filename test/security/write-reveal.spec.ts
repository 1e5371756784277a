// The promise of "What a write may reveal", attacked through the HTTP API on every write path.
import { randomUUID } from 'node:crypto';
import { createApplication, startTestApp, TestApp, createTenant, asKey } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];

describe('what a write may reveal', () => {
  let test: TestApp;
  let full: string; // reveal on /, every token permission
  let piiReveal: string; // reveal on /pii/ for token:create and token:read only
  let masker: string; // mask on /
  let redactor: string; // redact on /
  const as = (key: string) => asKey(test, key);
  const app = async (name: string, rules: unknown[], permissions = ALL) =>
    (await createApplication(test, { name, type: 'private', permissions, rules })).key;

  beforeAll(async () => {
    test = await startTestApp();
    full = await app('full', [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }]);
    piiReveal = await app('pii-reveal', [{ priority: 1, container: '/pii/', transform: 'reveal', permissions: ['token:create', 'token:read'] }], [
      'token:create',
      'token:read',
    ]);
    masker = await app('masker', [{ priority: 1, container: '/', transform: 'mask', permissions: ALL }]);
    redactor = await app('redactor', [{ priority: 1, container: '/', transform: 'redact', permissions: ALL }]);
  });
  afterAll(() => test.close());

  describe('deduplication', () => {
    const hidden = {
      type: 'token',
      data: { customer_id: 'cust_42', ssn: '111-22-3333', note: 'TOP-SECRET' },
      fingerprint_expression: '{{ data.customer_id }}',
      containers: ['/general/high/'],
    };
    const probe = { type: 'token', data: 'cust_42', fingerprint_expression: '{{ data }}', deduplicate_token: true, containers: ['/pii/'] };

    it('does not return a token the caller cannot see: a new token is created instead', async () => {
      const secret = await as(full).post('/tokens', hidden);
      expect(secret.status).toBe(201);
      expect((await as(piiReveal).get(`/tokens/${secret.body.id}`)).status).toBe(404);
      const attempt = await as(piiReveal).post('/tokens', probe);
      expect(attempt.status).toBe(201);
      expect(attempt.body.id).not.toBe(secret.body.id);
      expect(attempt.body.data).toBe('cust_42');
      expect(JSON.stringify(attempt.body)).not.toMatch(/TOP-SECRET|111-22-3333/);
      // The caller's own token is what its next deduplication finds.
      const again = await as(piiReveal).post('/tokens', probe);
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(attempt.body.id);
    });

    it('does not return it to a public key with only a token:create reveal rule either', async () => {
      await as(full).post('/tokens', { ...hidden, data: { ...hidden.data, customer_id: 'cust_77' } });
      const publicKey = (
        await createApplication(test, {
          name: 'public',
          type: 'public',
          permissions: ['token:create'],
          rules: [{ priority: 1, container: '/pii/', transform: 'reveal', permissions: ['token:create'] }],
        })
      ).key;
      const attempt = await as(publicKey).post('/tokens', { ...probe, data: 'cust_77' });
      expect(attempt.status).toBe(201);
      expect(JSON.stringify(attempt.body)).not.toMatch(/TOP-SECRET|111-22-3333/);
    });

    it('returns an existing token under the caller\'s token:create rule for ITS containers', async () => {
      const existing = await as(full).post('/tokens', { type: 'social_security_number', data: '222-33-4444', containers: ['/ops/'] });
      const opsMasker = await app('ops-masker', [
        { priority: 1, container: '/ops/', transform: 'mask', permissions: ['token:create'] },
        { priority: 2, container: '/', transform: 'reveal', permissions: ['token:create'] },
      ], ['token:create']);
      const found = await as(opsMasker).post('/tokens', { type: 'social_security_number', data: '222334444', containers: ['/mine/'], deduplicate_token: true });
      expect(found.status).toBe(200);
      expect(found.body.id).toBe(existing.body.id);
      expect(found.body.data).toBe('XXX-XX-4444');
    });
  });

  describe('PATCH of values derived from data', () => {
    let ssn: string;
    beforeEach(async () => {
      ssn = (await as(full).post('/tokens', { type: 'social_security_number', data: '555-44-3322' })).body.id;
    });

    it.each([
      ['masker', 'mask', '{{ data }}'],
      ['masker', 'mask', '{{ data | date: 1 }}'],
      ['redactor', 'search_indexes', ['{{ data | slice: 0, 3 }}']],
      ['masker', 'fingerprint_expression', '{{ data | slice: 0, 3 }}'],
      ['redactor', 'search_indexes', ['{{ data | last4 }}']],
    ])('%s changing %s to %j without data: 403 naming the field', async (who, field, value) => {
      const key = who === 'masker' ? masker : redactor;
      const before = await as(full).get(`/tokens/${ssn}`);
      const response = await as(key).patch(`/tokens/${ssn}`, { [field]: value });
      expect(response.status).toBe(403);
      expect(response.body.detail).toContain(field);
      expect(JSON.stringify(response.body)).not.toMatch(/555|3322/);
      // Nothing changed: the token, read in full, is what it was (data, mask, indexes, fingerprint, modification).
      expect((await as(full).get(`/tokens/${ssn}`)).body).toEqual(before.body);
    });

    it('the search-index oracle does not open: the redactor cannot make data:555 match', async () => {
      expect((await as(redactor).patch(`/tokens/${ssn}`, { search_indexes: ['{{ data | slice: 0, 3 }}'] })).status).toBe(403);
      const probe = await as(redactor).post('/tokens/search', { query: `data:555 AND id:${ssn}` });
      expect(probe.body.pagination.total_items).toBe(0);
      // The search itself works for this caller: the default indexes (the last four, say) still match.
      const control = await as(redactor).post('/tokens/search', { query: `data:3322 AND id:${ssn}` });
      expect(control.body.data.map((t: { id: string }) => t.id)).toEqual([ssn]);
    });

    it('a reveal holder may change them, and the caller who gives new data may too', async () => {
      expect((await as(full).patch(`/tokens/${ssn}`, { mask: '{{ data | reveal: 3, 0 }}' })).status).toBe(200);
      expect((await as(masker).get(`/tokens/${ssn}`)).body.data).toBe('555-XX-XXXX');
      const own = await as(masker).patch(`/tokens/${ssn}`, { data: '777-88-9999', mask: '{{ data | reveal: 3, 0 }}' });
      expect(own.status).toBe(200);
      expect(own.body.data).toBe('777-XX-XXXX');
    });

    it('a PATCH that changes neither data nor an expression evaluates nothing: a varying mask cannot be sampled', async () => {
      // A reveal holder sets a mask whose output varies with time; a masked reader then patches metadata again and again.
      // Milliseconds only: with the seconds too, the mask's digits could cover every digit of the SSN (a 400).
      expect((await as(full).patch(`/tokens/${ssn}`, { mask: "{{ 'now' | date: '%L' }} {{ data | reveal_last: 4 }}" })).status).toBe(200);
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const patched = await as(masker).patch(`/tokens/${ssn}`, { metadata: { n: String(i) } });
        expect(patched.status).toBe(200);
        expect(patched.body.metadata).toEqual({ n: String(i) });
        seen.add(patched.body.data);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      expect(seen.size).toBe(1);
    });

    it('a mask that evaluates to the whole data is a 400, with or without delimiters', async () => {
      for (const mask of ['{{ data }}', "{{ data | remove: '-' }}", 'X{{ data }}']) {
        const response = await as(full).patch(`/tokens/${ssn}`, { mask });
        expect(response.status).toBe(400);
        expect(Object.keys(response.body.errors)).toEqual(['mask']);
        expect(JSON.stringify(response.body)).not.toMatch(/555|3322/);
      }
      const created = await as(full).post('/tokens', { type: 'token', data: 'abc-def-ghi', mask: '{{ data | upcase }}' });
      expect(created.status).toBe(400);
    });
  });

  describe('container moves', () => {
    it('a masker cannot move a token under its own reveal rule, but can move it where it sees no more', async () => {
      const mover = await app('mover', [
        { priority: 1, container: '/open/', transform: 'reveal', permissions: ALL },
        { priority: 2, container: '/', transform: 'mask', permissions: ALL },
      ]);
      const id = (await as(full).post('/tokens', { type: 'social_security_number', data: '666-55-4444', containers: ['/pii/'] })).body.id;
      for (const containers of [['/open/'], ['/pii/', '/open/x/']]) {
        const response = await as(mover).patch(`/tokens/${id}`, { containers });
        expect(response.status).toBe(403);
        expect(response.body.detail).toContain('containers');
        expect(JSON.stringify(response.body)).not.toMatch(/666|4444-/);
      }
      expect((await as(mover).get(`/tokens/${id}`)).body.data).toBe('XXX-XX-4444');
      const sideways = await as(mover).patch(`/tokens/${id}`, { containers: ['/pci/'] });
      expect(sideways.status).toBe(200);
      expect(sideways.body.data).toBe('XXX-XX-4444');
      // With new data the caller knows what it moves.
      const own = await as(mover).patch(`/tokens/${id}`, { containers: ['/open/'], data: '123-12-1234' });
      expect(own.status).toBe(200);
      expect(own.body.data).toBe('123-12-1234');
    });

    it.each([['token:delete'], ['token:use'], ['token:create']])(
      'a reveal rule for %s elsewhere does not let a masked reader move the token under a reveal read rule',
      async (permission) => {
        const attacker = await app(`mover-${permission}`, [
          { priority: 1, container: '/secret/', transform: 'mask', permissions: ['token:read', 'token:update'] },
          { priority: 2, container: '/', transform: 'reveal', permissions: [permission] },
          { priority: 3, container: '/open/', transform: 'reveal', permissions: ['token:read', 'token:update'] },
        ], ['token:read', 'token:update', permission]);
        const id = (await as(full).post('/tokens', { type: 'social_security_number', data: '123-45-6789', containers: ['/secret/'] })).body.id;
        expect((await as(attacker).get(`/tokens/${id}`)).body.data).toBe('XXX-XX-6789');
        const move = await as(attacker).patch(`/tokens/${id}`, { containers: ['/open/'] });
        expect(move.status).toBe(403);
        expect(JSON.stringify(move.body)).not.toContain('123-45');
        expect((await as(attacker).get(`/tokens/${id}`)).body.data).toBe('XXX-XX-6789');
      },
    );
  });

  describe('token ids are scoped to the tenant', () => {
    it('an id taken in another tenant is as free as an unused one, and the two tokens stay apart', async () => {
      const mine = await as(full).post('/tokens', { type: 'token', data: 'tenant-a secret' });
      const other = (await createTenant(test, 'b', { type: 'operator', id: 'op' }, 'c')).management_key;
      const theirKey = (
        await createApplication(test, { name: 'b-full', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] }, other)
      ).key;
      const theirs = await as(theirKey).post('/tokens', { id: mine.body.id, type: 'token', data: 'tenant-b own' });
      expect(theirs.status).toBe(201);
      expect(theirs.body.id).toBe(mine.body.id);
      expect((await as(theirKey).get(`/tokens/${mine.body.id}`)).body.data).toBe('tenant-b own');
      expect((await as(full).get(`/tokens/${mine.body.id}`)).body.data).toBe('tenant-a secret');
      expect((await as(theirKey).post('/tokens', { id: mine.body.id, type: 'token', data: 'again' })).status).toBe(409);
      expect((await test.http().delete(`/tokens/${mine.body.id}`).set('SVC-API-KEY', theirKey)).status).toBe(204);
      expect((await as(full).get(`/tokens/${mine.body.id}`)).body.data).toBe('tenant-a secret');
      expect((await as(theirKey).get(`/tokens/${mine.body.id}`)).status).toBe(404);
      const unused = randomUUID();
      expect((await as(theirKey).post('/tokens', { id: unused, type: 'token', data: 'x' })).status).toBe(201);
    });
  });
});

describe('bounded work on token writes', () => {
  let test: TestApp;
  let key: string;
  beforeAll(async () => {
    test = await startTestApp();
    key = (await createApplication(test, { name: 'writer', type: 'private', permissions: ALL })).key;
  });
  afterAll(() => test.close());

  it('refuses expressions that loop past the shared budget with a 400, and data over 65,536 characters', async () => {
    const loop = '{% for a in (1..300) %}{% for b in (1..300) %}{% endfor %}{% endfor %}N';
    const looping = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'x', search_indexes: Array(20).fill(loop) });
    expect(looping.status).toBe(400);
    expect(Object.keys(looping.body.errors).some((field) => field.startsWith('search_indexes['))).toBe(true);
    // Filters that work per list item inside one call are beyond the budget's reach: not offered, or given short lists.
    const perItem = await test.http().post('/tokens').set('SVC-API-KEY', key).send({
      type: 'token',
      data: 'a'.repeat(65_000),
      fingerprint_expression: `{% assign a = data | split: '' %}{{ a | reject_exp: 'x', 'data contains "q"' | size }}`,
    });
    expect(perItem.status).toBe(400);
    expect(Object.keys(perItem.body.errors)).toEqual(['fingerprint_expression']);
    const longList = await test.http().post('/tokens').set('SVC-API-KEY', key).send({
      type: 'token',
      data: 'a'.repeat(65_000),
      mask: "{{ data | split: '' | where: 'x', 1 | where: 'y', 2 | size }}",
    });
    expect(longList.status).toBe(400);
    expect(JSON.stringify(longList.body.errors.mask)).toMatch(/more than 1,000 items/);
    const large = await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'ab-'.repeat(30_000) });
    expect(large.status).toBe(400);
    expect(large.body.errors.data).toEqual(['data must be at most 65,536 characters of JSON.']);
  });
});
