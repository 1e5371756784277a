// Once a finding, now a regression test: what flows back finds base64 only in unbroken runs of base64 characters. MIME and PEM base64 (RFC 2045,
// the `base64` tool, Python's encodebytes, Java's MIME encoder) breaks lines every 76 characters; when a break falls
// inside a value's encoding, neither half matches, and the caller decodes the plaintext of a token it may only see
// masked. The caller chooses where the break falls by padding its own body.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: base64 with line breaks passes what flows back', () => {
  let test: TestApp;
  let echo: LocalHttpServer;

  beforeAll(async () => {
    // An echo that answers the body as MIME base64: lines of 76 characters.
    echo = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(Buffer.from(req.body).toString('base64').replace(/(.{76})/g, '$1\r\n'));
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  it('a card whose encoding straddles a line break does not come back', async () => {
    const data = '4111111111111111';
    const owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    const caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:read', 'token:use'] }],
    });
    const id = (await asKey(test, owner.key).post('/tokens', { type: 'card_number', data })).body.id as string;
    const proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'b64', destination_url: echo.url('/') })).body.key;
    // 50 bytes of padding: the card's 16 bytes are base64 characters 67 to 88, across the break after 76.
    const answer = await test
      .http()
      .post('/proxy')
      .set('SVC-API-KEY', caller.key)
      .set('SVC-PROXY-KEY', proxyKey)
      .set('content-type', 'text/plain')
      .send(`${'x'.repeat(50)}{{ ${id} }}`);
    if (answer.headers['svc-proxy-error'] === 'true') return; // withheld by a fix
    expect(answer.status).toBe(200);
    const decoded = Buffer.from(answer.text.replace(/\s/g, ''), 'base64').toString('latin1');
    expect(decoded.startsWith('xxxxx')).toBe(true); // the answer is the echo
    expect(decoded).not.toContain(data);
  });
});
