// Once a finding, now a regression test: what flows back finds a value "in hex" and "as HTML character references" only in their tightest forms.
// Hex with a separator between bytes (a hex dump: `34 31 31 …`, `34:31:…`) and numeric references without their
// optional `;` (`&#52&#49…`, which HTML parsers read as the characters) are not found, and a caller that may only see
// a card masked reads it from an echo that writes its body so.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

const ENCODINGS: Record<string, { encode: (v: string) => string; decode: (t: string) => string }> = {
  'hex, space between bytes': {
    encode: (v) => [...Buffer.from(v)].map((b) => b.toString(16).padStart(2, '0')).join(' '),
    decode: (t) => Buffer.from(t.replace(/[^0-9a-f]/gi, ''), 'hex').toString('latin1'),
  },
  'hex, colon between bytes': {
    encode: (v) => [...Buffer.from(v)].map((b) => b.toString(16).padStart(2, '0')).join(':'),
    decode: (t) => Buffer.from(t.replace(/[^0-9a-f]/gi, ''), 'hex').toString('latin1'),
  },
  'numeric character references without ;': {
    encode: (v) => [...v].map((c) => `&#${c.charCodeAt(0)}`).join(''),
    decode: (t) => t.replace(/&#(\d+);?/g, (_m, n: string) => String.fromCharCode(Number(n))),
  },
};

describe('proxy attack: delimited hex and HTML references pass what flows back', () => {
  let test: TestApp;
  let echo: LocalHttpServer;

  beforeAll(async () => {
    echo = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(ENCODINGS[decodeURIComponent(req.path.slice(1))].encode(req.body));
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  it.each(Object.keys(ENCODINGS))('%s', async (name) => {
    const data = '4111111111111111';
    const owner = await createApplication(test, { name: 'owner', type: 'private', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create'] }] });
    const caller = await createApplication(test, { name: 'use-only', type: 'private', rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:read', 'token:use'] }] });
    const id = (await asKey(test, owner.key).post('/tokens', { type: 'card_number', data })).body.id as string;
    const proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'dump', destination_url: echo.url('/') })).body.key;
    const answer = await test
      .http()
      .post(`/proxy/${encodeURIComponent(name)}`)
      .set('SVC-API-KEY', caller.key)
      .set('SVC-PROXY-KEY', proxyKey)
      .set('content-type', 'text/plain')
      .send(`{{ ${id} }}`);
    if (answer.headers['svc-proxy-error'] === 'true') return; // withheld by a fix
    expect(answer.status).toBe(200);
    expect(ENCODINGS[name].decode(answer.text)).not.toContain(data);
  });
});
