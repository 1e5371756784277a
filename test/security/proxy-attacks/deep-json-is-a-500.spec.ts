// Once a finding, now a regression test: a deeply nested JSON body, sent by the caller or answered by the destination, ends in a RangeError (stack
// overflow in the recursive JSON.stringify and what-flows-back walks) that the vault answers as a 500 "unexpected
// error", after holding the event loop. The promise: hostile input never gives a 5xx (the API's own bodies stop at 64
// levels with a 400).
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

const DEEP = '['.repeat(10_000) + ']'.repeat(10_000);

describe('proxy attack: deeply nested JSON is a 500', () => {
  let test: TestApp;
  let dest: LocalHttpServer;
  let caller: { key: string };
  let proxyKey: string;
  let anonymousKey: string;

  beforeAll(async () => {
    dest = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.path.startsWith('/deep') ? DEEP : '{}');
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    caller = await createApplication(test, { name: 'caller', type: 'private', permissions: ['token:use'] });
    const admin = asKey(test, BOOTSTRAP_KEY);
    // A configuration: what flows back looks for its values in every answer, anonymous ones included.
    proxyKey = (await admin.post('/proxies', { name: 'p', destination_url: dest.url('/'), configuration: { api_key: 'sk_test_0123456789' } })).body.key;
    anonymousKey = (
      await admin.post('/proxies', {
        name: 'inbound',
        destination_url: dest.url('/'),
        require_auth: false,
        configuration: { api_key: 'sk_test_0123456789' },
        request_transforms: [{ type: 'code', code: 'module.exports = async () => ({})' }],
      })
    ).body.key;
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it('a caller body nested 10,000 deep is not a 5xx', async () => {
    const answer = await test.http().post('/proxy/ok').set('SVC-API-KEY', caller.key).set('SVC-PROXY-KEY', proxyKey).set('content-type', 'application/json').send(DEEP);
    expect(answer.status).toBeLessThan(500);
  });

  it('an anonymous body nested 10,000 deep is not a 5xx', async () => {
    const answer = await test.http().post('/proxy/ok').set('SVC-PROXY-KEY', anonymousKey).set('content-type', 'application/json').send(DEEP);
    expect(answer.status).toBeLessThan(500);
  });

  it("a destination's answer nested 10,000 deep is not a 500 (a 502 of the vault's own at most)", async () => {
    const answer = await test.http().get('/proxy/deep').set('SVC-PROXY-KEY', anonymousKey);
    expect(answer.status).not.toBe(500);
  });
});
