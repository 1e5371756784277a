// POST /detokenize through the HTTP API ("Tokenize and detokenize" in the API guide).
import { randomUUID } from 'node:crypto';
import { asKey, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];
const NOT_FOUND = 'The detokenization expression refers to a token that was not found.';
const SSN = '123-45-6789';
const CARD = { number: '4242424242424242', exp: { month: 12, year: 2030 }, holder: 'Ada Lovelace' };

describe('POST /detokenize', () => {
  let test: TestApp;
  let full: string; // reveal on /
  let ruled: string; // reveal /cards/, mask /pii/, redact /general/ for token:read
  let writerOnly: string; // token:create, no token:read
  let ssn: string; // /pii/high/, masked by ruled
  let card: string; // JSON data in /cards/, revealed to ruled
  let note: string; // /general/high/, redacted for ruled
  let hidden: string; // /hidden/: no rule of ruled covers it
  const as = (key: string) => asKey(test, key);
  const detokenize = (body: unknown, key = full) => as(key).post('/detokenize', body);
  const raw = (text: string, key = full) => test.http().post('/detokenize').set('SVC-API-KEY', key).set('Content-Type', 'application/json').send(text);
  const create = async (body: object) => {
    const response = await as(full).post('/tokens', body);
    if (response.status !== 201) throw new Error(`create: ${response.status}`);
    return response.body.id as string;
  };

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    full = (await createApplication(test, { name: 'full', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] })).key;
    ruled = (
      await createApplication(test, {
        name: 'ruled',
        type: 'private',
        permissions: ['token:read'],
        rules: [
          { priority: 1, container: '/cards/', transform: 'reveal', permissions: ['token:read'] },
          { priority: 2, container: '/pii/', transform: 'mask', permissions: ['token:read'] },
          { priority: 3, container: '/general/', transform: 'redact', permissions: ['token:read'] },
        ],
      })
    ).key;
    writerOnly = (await createApplication(test, { name: 'writer', type: 'private', permissions: ['token:create'] })).key;
    ssn = await create({ type: 'social_security_number', data: SSN });
    card = await create({ type: 'token', data: CARD, containers: ['/cards/'] });
    note = await create({ type: 'token', data: 'a redacted note' });
    hidden = await create({ type: 'token', data: 'hidden data', containers: ['/hidden/'] });
  });
  afterAll(() => test.close());

  it('replaces whole-string expressions by the data, of any JSON type, and keeps everything else', async () => {
    const response = await detokenize({ card: `{{ ${card} }}`, ssn: `{{ token: ${ssn} }}`, n: 5, list: [null, true, 'plain {{ name }}'] });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ card: CARD, ssn: SSN, n: 5, list: [null, true, 'plain {{ name }}'] });
  });

  it('takes any JSON value as the body: an array, a string, a number, null', async () => {
    expect((await detokenize([`{{ ${ssn} }}`])).body).toEqual([SSN]);
    const text = await raw(JSON.stringify(`{{ ${ssn} }}`));
    expect([text.status, text.headers['content-type'], text.text]).toEqual([200, expect.stringMatching(/^application\/json/), JSON.stringify(SSN)]);
    const number = await raw('42');
    expect([number.status, number.text]).toEqual([200, '42']);
    const nothing = await raw('null');
    expect([nothing.status, nothing.text]).toEqual([200, 'null']);
  });

  it('splices the string form of an expression inside a longer string', async () => {
    const response = await detokenize({ text: `SSN {{ ${ssn} }}, card {{ ${card} | json: '$.number' | reveal_last: 4 }}, exp {{ ${card} | json: '$.exp' }}` });
    expect(response.body.text).toBe('SSN 123-45-6789, card XXXXXXXXXXXX4242, exp {"month":12,"year":2030}');
  });

  it('applies the filters: json selects inside JSON data, the token filters work', async () => {
    const response = await detokenize({
      number: `{{ ${card} | json: '$.number' }}`,
      month: `{{ ${card} | json: '$.exp.month' }}`,
      last4: `{{ ${card} | json: '$.number' | reveal_last: 4 }}`,
      ssn: `{{ ${ssn} | reveal_last: 4 }}`,
    });
    expect(response.body).toEqual({ number: CARD.number, month: '12', last4: 'XXXXXXXXXXXX4242', ssn: 'XXX-XX-6789' });
  });

  it('shows each token as the caller\'s token:read rule does: reveal the data, mask the mask', async () => {
    const response = await detokenize({ card: `{{ ${card} | json: '$.holder' }}`, ssn: `{{ ${ssn} }}`, last4: `{{ ${ssn} | last4 }}` }, ruled);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ card: 'Ada Lovelace', ssn: 'XXX-XX-6789', last4: '6789' });
  });

  it('answers 403 naming the path of a token the caller\'s rule redacts', async () => {
    const response = await detokenize({ ok: `{{ ${ssn} }}`, notes: [`{{ ${note} }}`] }, ruled);
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe('The access rule that applies to the token at notes[0] does not show its data.');
    expect(JSON.stringify(response.body)).not.toMatch(/redacted note|6789/);
  });

  it('answers a token that does not exist and one no rule covers with the very same 400', async () => {
    const missing = await detokenize({ a: [`{{ ${randomUUID()} }}`] }, ruled);
    const uncovered = await detokenize({ a: [`{{ ${hidden} }}`] }, ruled);
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual({ 'a[0]': [NOT_FOUND] });
    expect(uncovered.status).toBe(400);
    expect(uncovered.body).toEqual(missing.body);
    expect(JSON.stringify(uncovered.body)).not.toContain('hidden data');
  });

  it('names every path whose token is not found, in one 400', async () => {
    const response = await detokenize({ a: `{{ ${randomUUID()} }}`, b: `{{ ${ssn} }}`, c: `x {{ ${hidden} }}` }, ruled);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ a: [NOT_FOUND], c: [NOT_FOUND] });
  });

  it('does not find another tenant\'s token', async () => {
    const other = await createTenant(test, `other-${randomUUID()}`);
    const stranger = (await createApplication(test, { name: 's', type: 'private', permissions: ['token:read'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] }] }, other.management_key)).key;
    const response = await detokenize({ a: `{{ ${card} }}` }, stranger);
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ a: [NOT_FOUND] });
  });

  it('does not find a deleted token', async () => {
    const id = await create({ type: 'token', data: 'soon gone' });
    expect((await raw(JSON.stringify(`{{ ${id} }}`))).body).toBe('soon gone');
    expect((await as(full).delete(`/tokens/${id}`)).status).toBe(204);
    const response = await detokenize({ gone: `{{ ${id} }}` });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ gone: [NOT_FOUND] });
  });

  it('does not find an expired token', async () => {
    const id = await create({ type: 'token', data: 'short-lived', expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await detokenize([`{{ ${id} }}`])).body).toEqual(['short-lived']);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const response = await detokenize({ late: `{{ ${id} }}` });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ late: [NOT_FOUND] });
  });

  it('names every expression that does not parse, then every unknown filter, before any token is read', async () => {
    const syntax = await detokenize({ a: '{{ token: not-a-uuid }}', b: `{{ ${randomUUID()} }}`, c: `{{ ${ssn} | }}` });
    expect(syntax.status).toBe(400);
    expect(Object.keys(syntax.body.errors).sort()).toEqual(['a', 'c']);
    expect(syntax.body.errors.c).toEqual([expect.stringMatching(/^The detokenization expression at character 1 expects a filter name/)]);
    const filters = await detokenize({ a: `{{ ${randomUUID()} }}`, b: `{{ ${ssn} | no_such_filter }}` });
    expect(filters.status).toBe(400);
    expect(filters.body.errors).toEqual({ b: ['The filters of a detokenization expression do not parse: an unknown filter (line 1, column 1).'] });
    expect(filters.text).not.toContain('no_such_filter');
  });

  it('takes 100 expressions and refuses 101 with a 400 on body', async () => {
    const hundred = await detokenize(Array(100).fill(`{{ ${ssn} | last4 }}`));
    expect(hundred.status).toBe(200);
    expect(hundred.body).toEqual(Array(100).fill('6789'));
    const more = await detokenize({ list: Array(100).fill(`{{ ${ssn} }}`), one: `{{ ${card} }}` });
    expect(more.status).toBe(400);
    expect(more.body.errors).toEqual({ body: ['A body may hold at most 100 detokenization expressions.'] });
  });

  it('needs token:read, and a body', async () => {
    const denied = await detokenize({ a: `{{ ${ssn} }}` }, writerOnly);
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe('The application lacks the token:read permission.');
    const none = await test.http().post('/detokenize').set('SVC-API-KEY', full);
    expect(none.status).toBe(400);
    expect(none.body.errors).toEqual({ body: ['A JSON request body is required.'] });
  });
});
