// Once a finding, now a regression test: a response `tokenize` transform runs on the destination's answer before what flows back, so a value the
// request detokenized and the destination echoed becomes a NEW token, created as the proxy's application in the
// transform's containers. A caller holding only token:use (and a mask, redact or no token:read rule) on the original
// reads the new token in plaintext wherever it has a reveal rule. No "withheld" record is written either.
//
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: a response tokenize transform launders detokenized data into a readable token', () => {
  let test: TestApp;
  let echo: LocalHttpServer;

  beforeAll(async () => {
    // An ordinary echoing destination: answers the request body as it came, with its content type.
    echo = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', String(req.headers['content-type'] ?? 'text/plain'));
      res.end(req.body);
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
  ] as const)('a caller whose token:read rule is %s never reads the data through a token made from the echo', async (transform, type, data) => {
    const owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    // The attacker: token:use and a `transform` read rule on /pci/ and /secret/; reveal on its own /general/ only.
    const caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [
        { priority: 1, container: '/pci/', transform, permissions: ['token:use', 'token:read'] },
        { priority: 2, container: '/secret/', transform, permissions: ['token:use', 'token:read'] },
        { priority: 3, container: '/general/', transform: 'reveal', permissions: ['token:create', 'token:read'] },
      ],
    });
    const created = await asKey(test, owner.key).post('/tokens', { type, data, containers: [type === 'card_number' ? '/pci/' : '/secret/'] });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const direct = await asKey(test, caller.key).get(`/tokens/${id}`);
    expect(direct.body.data).not.toBe(data); // the caller may not read it

    // A proxy whose response transform tokenizes `$.v` of the destination's answer (as the caller's application).
    const proxy = await asKey(test, BOOTSTRAP_KEY).post('/proxies', {
      name: 'tokenize-answers',
      destination_url: echo.url('/charges'),
      application: { id: caller.id },
      response_transforms: [{ type: 'tokenize', fields: [{ json_path: '$.v', token: { type: 'token', containers: ['/general/'] } }] }],
    });
    expect(proxy.status).toBe(201);

    const answer = await test
      .http()
      .post('/proxy')
      .set('SVC-API-KEY', caller.key)
      .set('SVC-PROXY-KEY', proxy.body.key)
      .set('content-type', 'application/json')
      .send({ v: `{{ ${id} }}` });
    // A fix may refuse the answer (a 4xx/5xx of the vault's own): then nothing was laundered.
    if (answer.status !== 200) return;
    expect(JSON.stringify(answer.body)).not.toContain(data);
    const newId = answer.body.v as string;

    const laundered = await asKey(test, caller.key).get(`/tokens/${newId}`);
    // Expected: the caller learns no more than its own rule on the original shows (as react caps tokens made from
    // results that used tokens). Observed while the bug exists: 200 with `data` equal to the original's plaintext.
    expect(laundered.body.data).not.toBe(data);
  });
});
