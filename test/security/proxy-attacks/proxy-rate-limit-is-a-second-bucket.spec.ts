// Once a finding, now a regression test: an invocation with SVC-API-KEY is rate-limited by a RateLimiter of the invocation controller's own, not the
// key's bucket that every other endpoint takes from, so each key gets VAULT_RATE_LIMIT_PER_SECOND twice over: once on
// /proxy and once everywhere else (the docs: it "counts against that key's VAULT_RATE_LIMIT_PER_SECOND", the limit
// that bounds guessing through search and fingerprints).
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe("proxy attack: /proxy does not count against the key's rate limit", () => {
  let test: TestApp;
  let dest: LocalHttpServer;

  beforeAll(async () => {
    dest = await startLocalHttpServer((_req, res) => void res.end('ok'));
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it('a key with a burst of 2 gets no more than 2 requests through at once, /proxy and other endpoints together', async () => {
    const caller = await createApplication(test, { name: 'caller', type: 'private', permissions: ['token:use'] });
    const proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'p', destination_url: dest.url('/') })).body.key;
    await test.close({ keepData: true });
    // The same data dir, now with 1 request a second per key (bursts of 2).
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '1' }, test.dataDir);
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) statuses.push((await test.http().get('/proxy').set('SVC-API-KEY', caller.key).set('SVC-PROXY-KEY', proxyKey)).status);
    for (let i = 0; i < 2; i++) statuses.push((await test.http().get('/permissions').set('SVC-API-KEY', caller.key)).status);
    // Observed while the bug exists: [200, 200, 200, 200].
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
  });
});
