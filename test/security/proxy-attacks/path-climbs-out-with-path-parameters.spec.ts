// Once a finding, now a regression test: the path after /proxy may not climb out of the destination's path, and `..` is refused as such, encoded or
// not, behind `/` or `\`. A `..;` segment (a `..` with a path parameter) passes: Tomcat, Jetty and Spring (and proxies
// in front of them) drop the parameter and resolve the `..`, so `/proxy/..;/admin` on a destination of `/api/` reaches
// `/admin` there.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

/** How a Servlet container reads a request path: each segment's `;parameters` dropped, then dot segments resolved. */
const servletPath = (path: string): string => {
  const out: string[] = [];
  for (const raw of decodeURIComponent(path.split('?')[0]).split('/').slice(1)) {
    const segment = raw.split(';')[0];
    if (segment === '..') out.pop();
    else if (segment !== '.') out.push(segment);
  }
  return `/${out.join('/')}`;
};

describe('proxy attack: a `..;` segment leaves the destination path', () => {
  let test: TestApp;
  let dest: LocalHttpServer;

  beforeAll(async () => {
    dest = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ servletPath: servletPath(req.path) }));
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it.each(['/..;/admin', '/a/..;/..;/admin', '/..;x/admin', '/%2e%2e;/admin'])('%s stays under the destination path', async (path) => {
    const caller = await createApplication(test, { name: 'caller', type: 'private', permissions: ['token:use'] });
    const proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'api', destination_url: dest.url('/api/') })).body.key;
    const before = dest.received.length;
    const answer = await test.http().get(`/proxy${path}`).set('SVC-API-KEY', caller.key).set('SVC-PROXY-KEY', proxyKey);
    if (answer.status === 400) {
      expect(answer.body.errors).toHaveProperty('path');
      expect(dest.received.length).toBe(before); // refused: nothing sent
      return;
    }
    // Sent: the destination must read it as a path under /api/. Observed while the bug exists: `/admin`.
    expect(answer.body.servletPath).toMatch(/^\/api\//);
  });
});
