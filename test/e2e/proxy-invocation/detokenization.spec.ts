// Detokenization in a proxied request: expressions in JSON and text bodies and in header values, each needing the
// caller's token:use rule; splices put the whole value, filters need a revealing token:read rule; a token missing or
// not covered is the same 400 naming its place; the proxy's request transforms see the expressions, never the data.
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../../support/test-app';
import { privateApp, startDestination, type Destination } from './destinations';

const CARD = '4242424242424242';
const SSN = '078-05-1120';

const expectVaultAnswer = (response: Response, status: number) => {
  expect({ status: response.status, error: response.headers['svc-proxy-error'] }).toEqual({ status, error: 'true' });
};

describe('ANY /proxy: detokenization', () => {
  let test: TestApp;
  let dest: Destination;
  let proxy: { id: string; key: string };
  let revealer: string; // token:read and token:use, reveal
  let useOnly: string; // token:use alone, on a mask rule: may use, sees nothing
  let masker: string; // token:read and token:use, mask
  let elsewhere: string; // token:use only in /billing/ (cards are made in /pci/high/)
  let card: string;
  let ssn: string;
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const invoke = (key: string, path = '/echo', proxyKey = proxy.key) => test.http().post(`/proxy${path}`).set('SVC-PROXY-KEY', proxyKey).set('SVC-API-KEY', key);
  const sendJson = (key: string, body: unknown, proxyKey = proxy.key) => invoke(key, '/echo', proxyKey).set('content-type', 'application/json').send(body as object);
  const received = () => dest.last('/echo');

  beforeAll(async () => {
    dest = await startDestination();
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const ALL = ['token:create', 'token:read', 'token:use'];
    revealer = (await createApplication(test, privateApp('revealer', ALL, 'reveal'))).key;
    useOnly = (await createApplication(test, privateApp('use only', ['token:use'], 'mask'))).key;
    masker = (await createApplication(test, privateApp('masker', ['token:read', 'token:use'], 'mask'))).key;
    elsewhere = (await createApplication(test, { name: 'billing', type: 'private', permissions: ['token:use'], rules: [{ priority: 1, container: '/billing/', transform: 'reveal', permissions: ['token:use'] }] })).key;
    card = (await asKey(test, revealer).post('/tokens', { type: 'card_number', data: CARD })).body.id;
    ssn = (await asKey(test, revealer).post('/tokens', { type: 'social_security_number', data: SSN })).body.id;
    const created = await admin().post('/proxies', { name: 'echo', destination_url: dest.url('/') });
    proxy = created.body;
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it('puts the data in for whole JSON values and splices, for a caller that may only use the tokens', async () => {
    const response = await sendJson(useOnly, { card: `{{ ${card} }}`, nested: [{ ssn: `{{ token: ${ssn} }}` }], note: `Card {{ ${card} }} for {{ ${ssn} }}`, n: 1 });
    expect(response.status).toBe(200);
    expect(JSON.parse(received().body.toString())).toEqual({ card: CARD, nested: [{ ssn: SSN }], note: `Card ${CARD} for ${SSN}`, n: 1 });
  });

  it.each([
    ['text/plain', (id: string) => `card {{ ${id} }}.`, `card ${CARD}.`],
    ['text/csv; charset=utf-8', (id: string) => `a,{{ ${id} }}\n`, `a,${CARD}\n`],
    ['application/x-www-form-urlencoded', (id: string) => `number={{${id}}}&cvc=123`, `number=${CARD}&cvc=123`],
    ['application/xml', (id: string) => `<card><number>{{ ${id} }}</number></card>`, `<card><number>${CARD}</number></card>`],
    ['application/soap+xml', (id: string) => `<n>{{ ${id} }}</n>`, `<n>${CARD}</n>`],
    ['application/json', (id: string) => `"{{ ${id} }}"`, `"${CARD}"`],
    ['application/json', (id: string) => `not json {{ ${id} }}`, `not json ${CARD}`],
  ])('puts the data in a %s body', async (type, body, expected) => {
    const response = await invoke(useOnly).set('content-type', type).send(body(card));
    expect(response.status).toBe(200);
    expect(received().body.toString()).toBe(expected);
  });

  it('leaves a body of another type as it is', async () => {
    const body = Buffer.from(`{{ ${card} }}`);
    const response = await invoke(useOnly).set('content-type', 'application/octet-stream').send(body);
    expect(response.status).toBe(200);
    expect(received().body.toString()).toBe(`{{ ${card} }}`);
  });

  it('puts the data in header values, a repeated header each in its place', async () => {
    const response = await invoke(useOnly)
      .set('x-card', `{{ ${card} }}`)
      .set('authorization', `Basic {{ ${ssn} }}`)
      .set('x-plain', 'no expression')
      .set('content-type', 'text/plain')
      .send('body');
    expect(response.status).toBe(200);
    expect(received().headers).toMatchObject({ 'x-card': CARD, authorization: `Basic ${SSN}`, 'x-plain': 'no expression' });
  });

  it('refuses a filter to a caller whose token:read rule does not reveal the token (403 naming the place)', async () => {
    const before = dest.received.length;
    for (const key of [useOnly, masker]) {
      const response = await sendJson(key, { last4: `{{ token: ${card} | last4 }}` });
      expectVaultAnswer(response, 403);
      expect(Object.keys(response.body.errors)).toEqual(['body.last4']);
      expect(response.text).not.toContain(CARD);
    }
    const header = await invoke(useOnly).set('x-last4', `{{ ${card} | last4 }}`);
    expectVaultAnswer(header, 403);
    expect(Object.keys(header.body.errors)).toEqual(['headers.x-last4']);
    expect(dest.received.length).toBe(before);
    const revealed = await sendJson(revealer, { last4: `{{ token: ${card} | last4 }}` });
    expect(revealed.status).toBe(200);
    expect(JSON.parse(received().body.toString())).toEqual({ last4: '4242' });
  });

  it('answers the same 400 naming the place for a token that is missing and one no token:use rule covers', async () => {
    const before = dest.received.length;
    const uncovered = await sendJson(elsewhere, { card: `{{ ${card} }}` });
    const missing = await sendJson(elsewhere, { card: `{{ ${randomUUID()} }}` });
    expectVaultAnswer(uncovered, 400);
    expectVaultAnswer(missing, 400);
    expect(Object.keys(uncovered.body.errors)).toEqual(['body.card']);
    expect(uncovered.body).toEqual(missing.body);
    const header = await invoke(elsewhere).set('x-card', `{{ ${card} }}`);
    expectVaultAnswer(header, 400);
    expect(Object.keys(header.body.errors)).toEqual(['headers.x-card']);
    const text = await invoke(elsewhere).set('content-type', 'text/plain').send(`{{ ${card} }}`);
    expectVaultAnswer(text, 400);
    expect(Object.keys(text.body.errors)).toEqual(['body']);
    expect(dest.received.length).toBe(before);
  });

  it('takes at most 100 expressions', async () => {
    const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `{{ ${card} }}`]));
    expect((await sendJson(useOnly, many(100))).status).toBe(200);
    const tooMany = await sendJson(useOnly, many(101));
    expectVaultAnswer(tooMany, 400);
    expect(Object.keys(tooMany.body.errors)).toEqual(['body']);
    expect(tooMany.body.errors.body[0]).toMatch(/100/);
    // Headers count with the body.
    const mixed = await sendJson(useOnly, many(100)).set('x-card', `{{ ${card} }}`);
    expectVaultAnswer(mixed, 400);
  });

  it('takes a JSON body of at most 10,000 values once it holds an expression, refused before it is parsed', async () => {
    const body = (n: number) => ({ card: `{{ ${card} }}`, list: Array.from({ length: n }, () => ({})) });
    // The object, its two members and n items: 3 + n values (detokenization counts one more: the body's own place).
    expect((await sendJson(useOnly, body(9_996))).status).not.toBe(400);
    const tooMany = await sendJson(useOnly, body(9_998));
    expectVaultAnswer(tooMany, 400);
    expect(tooMany.body.errors.body[0]).toMatch(/at most 10000 values/);
  });

  it("runs the proxy's request transforms before detokenization: they see the expressions, never the data", async () => {
    const seeing = await admin().post('/proxies', {
      name: 'seeing',
      destination_url: dest.url('/'),
      request_transforms: [
        { type: 'code', code: "module.exports = async ({ args }) => ({ body: { ...args.body, seen: args.body.card.replace(/[{}]/g, '#') } });" },
        { type: 'mask', fields: ['$.masked'] },
      ],
    });
    const response = await sendJson(useOnly, { card: `{{ ${card} }}`, masked: 'abcdefgh' }, seeing.body.key);
    expect(response.status).toBe(200);
    expect(JSON.parse(received().body.toString())).toEqual({ card: CARD, masked: 'XXXXefgh', seen: `## ${card} ##` });
  });

  it("records a use entry per token detokenized, naming the proxy, and the ephemeral proxy's", async () => {
    const fresh = (await asKey(test, revealer).post('/tokens', { type: 'card_number', data: '5555555555554444' })).body.id;
    expect((await sendJson(useOnly, { a: `{{ ${fresh} }}`, b: `{{ ${fresh} }}` })).status).toBe(200);
    const ephemeral = await test.http().post('/proxy/echo').set('SVC-API-KEY', useOnly).set('SVC-PROXY-URL', dest.url('/')).set('x-card', `{{ ${fresh} }}`);
    expect(ephemeral.status).toBe(200);
    const entries = (await admin().get(`/logs?entity_id=${fresh}`)).body.data.filter((entry: { operation: string }) => entry.operation === 'use');
    const messages = entries.map((entry: { message: string }) => entry.message).sort();
    // Once per invocation, however many times the request holds it; the echo's answer is withheld (flow-back.spec.ts).
    expect(messages.filter((message: string) => message.startsWith('Token used'))).toEqual(['Token used by an ephemeral proxy', `Token used by proxy ${proxy.id}`]);
  });

  it('detokenizes nothing and records no use when the request fails before it is sent', async () => {
    const fresh = (await asKey(test, revealer).post('/tokens', { type: 'card_number', data: '4000056655665556' })).body.id;
    const refused = await sendJson(useOnly, { a: `{{ ${fresh} }}`, b: `{{ ${fresh} | last4 }}` });
    expectVaultAnswer(refused, 403);
    const entries = (await admin().get(`/logs?entity_id=${fresh}`)).body.data.filter((entry: { operation: string }) => entry.operation === 'use');
    expect(entries).toEqual([]);
  });
});
