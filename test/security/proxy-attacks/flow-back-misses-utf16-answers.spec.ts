// Once a finding, now a regression test: what flows back reads an answer's bytes as UTF-8 (else Latin-1) whatever its declared charset. A destination
// that answers in UTF-16 (`charset=utf-16`, as .NET's XML serialisation does by default) echoes a detokenized value as
// `4\0 1\0 1\0 …`, which neither reading matches, so the caller decodes the plaintext of a token it may only see
// masked or redacted.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: an answer in UTF-16 passes what flows back', () => {
  let test: TestApp;
  let echo: LocalHttpServer;

  beforeAll(async () => {
    // A SOAP-style echo: the request body back inside XML, encoded in UTF-16LE with its byte order mark.
    echo = await startLocalHttpServer((req, res) => {
      const xml = `<?xml version="1.0" encoding="utf-16"?><Echo>${req.body}</Echo>`;
      res.setHeader('content-type', 'text/xml; charset=utf-16');
      res.end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]));
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  it.each([
    ['mask', 'card_number', '4111111111111111'],
    ['redact', 'token', 'Zebra-Quartz-Mango-77'],
  ] as const)('a caller whose read rule is %s gets no plaintext back', async (transform, type, data) => {
    const owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    const caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform, permissions: ['token:read', 'token:use'] }],
    });
    const id = (await asKey(test, owner.key).post('/tokens', { type, data })).body.id as string;
    const proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'soap', destination_url: echo.url('/') })).body.key;
    const answer = await test
      .http()
      .post('/proxy')
      .set('SVC-API-KEY', caller.key)
      .set('SVC-PROXY-KEY', proxyKey)
      .set('content-type', 'text/xml')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .send(`<card>{{ ${id} }}</card>`);
    // A fix may withhold the answer (the vault's own problem): then nothing flowed back.
    if (answer.headers['svc-proxy-error'] === 'true') return;
    const decoded = (answer.body as Buffer).toString('utf16le');
    expect(decoded).toContain('<Echo><card>'); // the answer is the echo
    expect(decoded).not.toContain(data);
  });
});
