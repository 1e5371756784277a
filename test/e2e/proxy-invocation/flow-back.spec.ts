// What flows back from a proxy: a destination that echoes what it was sent, in any encoding, in its body or its
// headers, never hands a caller data it could only use: each detokenized value comes back as the caller's own
// token:read view of it (its mask, else [redacted]), and the audit log records the replacement. A reveal caller
// gets its answer untouched.
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../../support/test-app';
import { privateApp, startDestination, type Destination } from './destinations';

const CARD = '4242424242424242';
const SSN = '078-05-1120';
/** Data that JSON escapes, URL-encoding changes and base64 hides. */
const NOTE = 'He said "Zq9 / bar & baz" – ok?';

/** Every way an answer might carry a value, as a reader of the answer would undo it. */
const encodings = (value: string): string[] => [
  value,
  JSON.stringify(value).slice(1, -1),
  JSON.stringify(JSON.stringify(value)).slice(1, -1),
  encodeURIComponent(value),
  Buffer.from(value).toString('base64').replace(/=+$/, '').slice(0, -2),
  Buffer.from(value).toString('base64url').slice(0, -2),
  // Without the delimiters a card or an SSN is written with or without.
  value.replace(/[\s\-./()_+,\u2013]/g, ''),
];

describe('ANY /proxy: what flows back', () => {
  let test: TestApp;
  let dest: Destination;
  let proxy: { id: string; key: string };
  let useOnly: string; // token:use only: sees nothing of the tokens
  let masker: string; // token:use, and token:read on a mask rule
  let revealer: string;
  const tokens = { card: '', ssn: '', note: '' };
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const send = (apiKey: string, body: unknown, path = '/echo', proxyKey = proxy.key) =>
    test.http().post(`/proxy${path}`).set('SVC-PROXY-KEY', proxyKey).set('SVC-API-KEY', apiKey).set('content-type', 'application/json').send(body as object);
  const answerText = (response: { text: string; headers: Record<string, string> }) => `${response.text}\n${JSON.stringify(response.headers)}`;
  const expectNone = (text: string, ...values: string[]) => {
    for (const value of values) for (const encoded of encodings(value)) expect(text).not.toContain(encoded);
  };

  beforeAll(async () => {
    dest = await startDestination();
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const ALL = ['token:create', 'token:read', 'token:use'];
    revealer = (await createApplication(test, privateApp('revealer', ALL, 'reveal'))).key;
    useOnly = (await createApplication(test, privateApp('use only', ['token:use'], 'mask'))).key;
    masker = (await createApplication(test, privateApp('masker', ['token:read', 'token:use'], 'mask'))).key;
    const create = async (body: unknown) => (await asKey(test, revealer).post('/tokens', body)).body.id as string;
    tokens.card = await create({ type: 'card_number', data: CARD });
    tokens.ssn = await create({ type: 'social_security_number', data: SSN });
    tokens.note = await create({ type: 'token', data: NOTE, mask: '{{ data | reveal_last: 2 }}' });
    proxy = (await admin().post('/proxies', { name: 'echo', destination_url: dest.url('/') })).body;
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it('shows a masking caller its masks wherever the echo put the values: as is, JSON-escaped, URL-encoded, base64, bare', async () => {
    const response = await send(masker, { card: `{{ ${tokens.card} }}`, ssn: `{{ ${tokens.ssn} }}`, note: `{{ ${tokens.note} }}`, plain: 'kept' }).set('x-card', `{{ ${tokens.card} }}`);
    expect(response.status).toBe(200);
    // The destination got the data; the caller gets none of it back.
    expect(JSON.parse(dest.last('/echo').body.toString())).toMatchObject({ card: CARD, ssn: SSN, note: NOTE });
    expectNone(answerText(response), CARD, SSN, NOTE);
    // The answer is still JSON (a mask holding a quote is escaped where it lands); the echo's text holds the masks.
    expect(response.body.body).toContain('"card":"XXXXXXXXXXXX4242","ssn":"XXX-XX-1120","note":"XX XXXX "XXX / XXX & XXX" – ok?"');
    expect(response.body.headers['x-card']).toBe('XXXXXXXXXXXX4242');
    expect(response.headers['x-echo-header']).toBe('XXXXXXXXXXXX4242');
    // A header cannot carry the mask's en dash: it is percent-encoded there.
    expect(response.headers['x-echo']).toContain('XX XXXX "XXX / XXX & XXX" %E2%80%93 ok?');
  });

  it('keeps a JSON answer JSON when the mask that replaces a value holds a quote', async () => {
    const response = await send(masker, { note: `{{ ${tokens.note} }}`, card: `{{ ${tokens.card} }}` }, '/mirror');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ note: 'XX XXXX "XXX / XXX & XXX" – ok?', card: 'XXXXXXXXXXXX4242' });
  });

  it('shows a caller without token:read [redacted]', async () => {
    const response = await send(useOnly, { card: `{{ ${tokens.card} }}`, ssn: `Bearer {{ ${tokens.ssn} }}` });
    expect(response.status).toBe(200);
    expectNone(answerText(response), CARD, SSN);
    expect(JSON.parse(response.body.body)).toEqual({ card: '[redacted]', ssn: 'Bearer [redacted]' });
  });

  it('replaces the values in a header the destination encoded them in', async () => {
    const response = await send(useOnly, { note: `{{ ${tokens.note} }}` });
    expect(response.status).toBe(200);
    expectNone(answerText(response), NOTE);
    expect(response.headers['x-echo']).toBeDefined();
    expect(response.headers['x-echo-b64']).toBeDefined();
  });

  it('replaces them in the message of a response transform that quotes the answer', async () => {
    const quoting = await admin().post('/proxies', {
      name: 'quoting',
      destination_url: dest.url('/'),
      response_transform: { code: "module.exports = async ({ args }) => { throw new Error('cannot parse ' + JSON.stringify(args.body) + ' ' + encodeURIComponent(args.body.body)); };" },
    });
    const response = await send(useOnly, { card: `{{ ${tokens.card} }}`, note: `{{ ${tokens.note} }}` }, '/echo', quoting.body.key);
    expect(response.status).toBe(422);
    expect(response.headers['svc-proxy-error']).toBe('true');
    expect(response.text).toMatch(/cannot parse/);
    expectNone(response.text, CARD, NOTE);
  });

  it('records each replacement in the audit log', async () => {
    const fresh = (await asKey(test, revealer).post('/tokens', { type: 'card_number', data: '5555555555554444' })).body.id;
    expect((await send(masker, { card: `{{ ${fresh} }}` })).status).toBe(200);
    const messages = (await admin().get(`/logs?entity_id=${fresh}`)).body.data.map((entry: { message: string }) => entry.message);
    expect(messages).toContain(`Token data withheld from the answer of proxy ${proxy.id}`);
    expect(messages).toContain(`Token used by proxy ${proxy.id}`);
  });

  it('hands a caller whose token:read rule reveals the tokens its answer untouched, and records no replacement', async () => {
    const fresh = (await asKey(test, revealer).post('/tokens', { type: 'social_security_number', data: '219-09-9999' })).body.id;
    const response = await send(revealer, { card: `{{ ${tokens.card} }}`, note: `{{ ${tokens.note} }}`, ssn: `{{ ${fresh} }}` });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.body)).toEqual({ card: CARD, note: NOTE, ssn: '219-09-9999' });
    expect(response.body.base64).toBe(dest.last('/echo').body.toString('base64'));
    const messages = (await admin().get(`/logs?entity_id=${fresh}`)).body.data.map((entry: { message: string }) => entry.message);
    expect(messages).toEqual([`Token used by proxy ${proxy.id}`, 'Token created']);
  });

  it('leaves an answer that holds none of the values as the destination sent it', async () => {
    const response = await send(masker, { card: `{{ ${tokens.card} }}` }, '/status/201');
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ status: 'as the destination says' });
  });

  it("withholds the proxy's configuration when the destination echoes what a transform built from it", async () => {
    const API_KEY = 'sk_live_Conf1gur4tionSecret';
    const withKey = (
      await admin().post('/proxies', {
        name: 'echo with key',
        destination_url: dest.url('/'),
        configuration: { api_key: API_KEY },
        request_transforms: [
          { type: 'code', code: "module.exports = async ({ args, configuration }) => ({ headers: { ...args.headers, authorization: 'Bearer ' + configuration.api_key } });" },
        ],
      })
    ).body;
    const response = await send(revealer, { plain: 'kept' }, '/echo', withKey.key);
    expect(response.status).toBe(200);
    // The destination got the key; the caller, which cannot read the proxy, gets none of it back.
    expect(dest.last('/echo').headers.authorization).toBe(`Bearer ${API_KEY}`);
    expectNone(answerText(response), API_KEY);
    expect(response.body.headers.authorization).toBe('Bearer [redacted]');
  });
});
