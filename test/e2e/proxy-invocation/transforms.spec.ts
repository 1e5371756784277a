// A proxy's transforms in both directions: code (in the sandbox, with the configuration), tokenize (as the proxy's
// application: a third party posts a card, the caller's servers receive a token id) and mask; and a transform that fails.
import type { Response } from 'supertest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../../support/test-app';
import { privateApp, startDestination, type Destination } from './destinations';

const CARD = '4111111111111111';
const SECRET = 'sk_live_Zq9proxyTransformSecret';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const expectVaultAnswer = (response: Response, status: number) => {
  expect({ status: response.status, error: response.headers['svc-proxy-error'] }).toEqual({ status, error: 'true' });
};

describe('ANY /proxy: transforms', () => {
  let test: TestApp;
  let dest: Destination;
  let caller: string;
  let tokenizer: { id: string; key: string }; // the proxies' application: creates and reads cards
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const createProxy = async (body: Record<string, unknown>) => {
    const response = await admin().post('/proxies', { name: 'transforming', destination_url: dest.url('/'), ...body });
    if (response.status !== 201) throw new Error(`create proxy: ${response.status} ${response.text}`);
    return response.body as { id: string; key: string };
  };
  const post = (proxyKey: string, path: string, body: unknown, apiKey: string | null = caller) => {
    const request = test.http().post(`/proxy${path}`).set('SVC-PROXY-KEY', proxyKey).set('content-type', 'application/json');
    return (apiKey === null ? request : request.set('SVC-API-KEY', apiKey)).send(body as object);
  };

  beforeAll(async () => {
    dest = await startDestination();
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    caller = (await createApplication(test, privateApp('caller', ['token:read', 'token:use'], 'mask'))).key;
    tokenizer = await createApplication(test, privateApp('tokenizer', ['token:create', 'token:read'], 'reveal'));
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  describe('tokenize', () => {
    it('takes a card a third party posts anonymously out on the way in: the destination receives a token id', async () => {
      const inbound = await createProxy({
        require_auth: false,
        application: { id: tokenizer.id },
        request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card.number', token: { type: 'card_number', metadata: { via: 'inbound' } } }, { json_path: '$.absent', token: { type: 'token' } }] }],
      });
      const response = await post(inbound.key, '/echo', { card: { number: CARD, expiry: '12/30' } }, null);
      expect(response.status).toBe(200);
      const sent = JSON.parse(dest.last('/echo').body.toString());
      expect(sent).toEqual({ card: { number: expect.stringMatching(UUID), expiry: '12/30' } });
      expect(dest.last('/echo').body.toString()).not.toContain(CARD);
      const token = await asKey(test, tokenizer.key).get(`/tokens/${sent.card.number}`);
      expect(token.body).toMatchObject({ type: 'card_number', data: CARD, metadata: { via: 'inbound' }, created_by: tokenizer.id });
    });

    it('deduplicates as POST /tokenize when the field asks for it', async () => {
      const inbound = await createProxy({
        require_auth: false,
        application: { id: tokenizer.id },
        request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number', deduplicate_token: true } }] }],
      });
      const first = await post(inbound.key, '/echo', { card: '4000056655665556' }, null);
      const firstId = JSON.parse(dest.last('/echo').body.toString()).card;
      const second = await post(inbound.key, '/echo', { card: '4000056655665556' }, null);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(firstId).toMatch(UUID);
      expect(JSON.parse(dest.last('/echo').body.toString()).card).toBe(firstId);
    });

    it('answers 400 naming the field for data that is not a valid token, and sends nothing', async () => {
      const inbound = await createProxy({
        application: { id: tokenizer.id },
        request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number' } }] }],
      });
      const before = dest.received.length;
      const response = await post(inbound.key, '/echo', { card: 'not-a-card-Zq9' });
      expectVaultAnswer(response, 400);
      expect(Object.keys(response.body.errors)).toEqual(['request_transforms[0].fields[0]']);
      expect(response.text).not.toContain('not-a-card-Zq9');
      expect(dest.received.length).toBe(before);
    });

    it("takes a card out of the destination's answer", async () => {
      const outbound = await createProxy({
        application: { id: tokenizer.id },
        response_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number' } }] }],
      });
      const response = await post(outbound.key, '/mirror', { card: '5555555555554444', other: 'kept' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ card: expect.stringMatching(UUID), other: 'kept' });
      expect((await asKey(test, tokenizer.key).get(`/tokens/${response.body.card}`)).body.data).toBe('5555555555554444');
    });

    it("answers 422 when the proxy's application is gone", async () => {
      const doomed = await createApplication(test, privateApp('doomed', ['token:create'], 'reveal'));
      const proxy = await createProxy({ application: { id: doomed.id }, request_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number' } }] }] });
      await admin().delete(`/applications/${doomed.id}`);
      const response = await post(proxy.key, '/echo', { card: CARD });
      expectVaultAnswer(response, 422);
      expect(Object.keys(response.body.errors)).toEqual(['application']);
    });
  });

  describe('mask', () => {
    it('masks fields on the way out and on the way back', async () => {
      const masking = await createProxy({
        request_transforms: [{ type: 'mask', fields: ['$.out'] }],
        response_transforms: [{ type: 'mask', fields: ['$.back', '$.nested[0].back', '$.number'] }],
      });
      const response = await post(masking.key, '/mirror', { out: '1234567890', back: '5555555555554444', nested: [{ back: 'abcdefgh' }], number: 12345678, short: 'xy' });
      expect(response.status).toBe(200);
      expect(JSON.parse(dest.last('/mirror').body.toString())).toMatchObject({ out: 'XXXXXX7890', back: '5555555555554444' });
      expect(response.body).toEqual({ out: 'XXXXXX7890', back: 'XXXXXXXXXXXX4444', nested: [{ back: 'XXXXefgh' }], number: 12345678, short: 'xy' });
    });
  });

  describe('code', () => {
    it('adds a header from the configuration on the way out, and reshapes the answer on the way back', async () => {
      const coded = await createProxy({
        configuration: { api_key: SECRET },
        request_transforms: [
          {
            type: 'code',
            code: `module.exports = async ({ args, configuration }) => ({
              headers: { ...args.headers, authorization: 'Bearer ' + configuration.api_key, 'x-seen': [args.method, args.path, args.query].join(' ') },
              body: { ...args.body, added: true },
            });`,
          },
        ],
        response_transform: { code: "module.exports = async ({ args }) => ({ body: { wrapped: args.body, status_header: args.headers['content-type'] }, headers: { 'x-transformed': 'yes', 'content-type': 'application/json' } });" },
      });
      const response = await post(coded.key, '/mirror/x?y=1', { original: 1 });
      expect(response.status).toBe(200);
      const got = dest.last('/mirror');
      expect(got.headers.authorization).toBe(`Bearer ${SECRET}`);
      expect(got.headers['x-seen']).toBe('POST /mirror/x y=1');
      expect(JSON.parse(got.body.toString())).toEqual({ original: 1, added: true });
      expect(response.headers['x-transformed']).toBe('yes');
      expect(response.body).toEqual({ wrapped: { original: 1, added: true }, status_header: 'application/json' });
    });

    it('applies the transforms of a direction in order', async () => {
      const chained = await createProxy({
        request_transforms: [
          { type: 'code', code: "module.exports = async ({ args }) => ({ body: { steps: [...args.body.steps, 'one'], card: '4000056655665556' } });" },
          { type: 'mask', fields: ['$.card'] },
          { type: 'code', code: "module.exports = async ({ args }) => ({ body: { ...args.body, steps: [...args.body.steps, 'two:' + args.body.card] } });" },
        ],
      });
      expect((await post(chained.key, '/echo', { steps: [] })).status).toBe(200);
      expect(JSON.parse(dest.last('/echo').body.toString())).toEqual({ steps: ['one', 'two:XXXXXXXXXXXX5556'], card: 'XXXXXXXXXXXX5556' });
    });

    it.each(['request', 'response'])('answers 422 with SVC-PROXY-ERROR when a %s transform throws, its message without the configuration', async (direction) => {
      const code = "module.exports = async ({ configuration }) => { throw new Error('upstream refused key ' + configuration.api_key + ' ' + encodeURIComponent(configuration.api_key)); };";
      const failing = await createProxy({ configuration: { api_key: SECRET }, [`${direction}_transforms`]: [{ type: 'code', code }] });
      const before = dest.received.length;
      const response = await post(failing.key, '/echo', { a: 1 });
      expectVaultAnswer(response, 422);
      expect(Object.keys(response.body.errors)).toEqual([`${direction}_transforms[0]`]);
      expect(response.body.errors[`${direction}_transforms[0]`][0]).toMatch(/upstream refused key/);
      expect(response.text).not.toContain(SECRET);
      expect(response.text).not.toContain(encodeURIComponent(SECRET));
      expect(dest.received.length).toBe(before + (direction === 'request' ? 0 : 1));
      expect(test.logs.join('')).not.toContain(SECRET);
    });

    it.each([
      ['request', 'a line break', "'a\\r\\nInjected: 1'"],
      ['response', 'a line break', "'a\\nInjected: 1'"],
      ['request', 'a character beyond Latin-1', "'price in \u20ac'"],
      ['response', 'a character beyond Latin-1', "'price in \u20ac'"],
      ['response', 'a control character', "'a\\u0007b'"],
    ])('answers 422 naming the transform when a %s transform returns a header value with %s', async (direction, _what, value) => {
      const bad = await createProxy({ [`${direction}_transform`]: { code: `module.exports = async () => ({ headers: { 'x-bad': ${value} } });` } });
      const response = await post(bad.key, '/echo', {});
      expectVaultAnswer(response, 422);
      expect(Object.keys(response.body.errors)).toEqual([`${direction}_transforms[0]`]);
      expect(response.body.errors[`${direction}_transforms[0]`][0]).toMatch(/x-bad/);
    });
  });
});
