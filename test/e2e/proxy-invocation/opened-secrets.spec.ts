// A proxy's opened secrets are kept in memory per sealed version: an invocation after a change uses the change, one
// after the proxy's delete finds nothing, and an anonymous one after its tenant's delete is a 401, however warm the
// kept copy was.
import { asKey, createTenant, startTestApp, TestApp } from '../../support/test-app';
import { startDestination, type Destination } from './destinations';

describe('ANY /proxy: the secrets a process keeps opened', () => {
  let test: TestApp;
  let dest: Destination;

  beforeAll(async () => {
    dest = await startDestination();
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND: '1000', VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  const invoke = (proxyKey: string) => test.http().post('/proxy/echo').set('SVC-PROXY-KEY', proxyKey).set('Content-Type', 'application/json').send({ hello: 'world' });

  it('uses a changed destination and configuration at once, and nothing of a deleted proxy', async () => {
    const tenant = await createTenant(test, 'kept secrets');
    const admin = asKey(test, tenant.management_key);
    const code = "module.exports = async (req) => ({ headers: { ...req.args.headers, 'x-setting': req.configuration.setting } })";
    const created = await admin.post('/proxies', {
      name: 'kept',
      destination_url: dest.url('/first'),
      require_auth: false,
      configuration: { setting: 'one' },
      request_transforms: [{ type: 'code', code }],
    });
    expect(created.status).toBe(201);
    const { id, key } = created.body as { id: string; key: string };
    for (let i = 0; i < 3; i++) expect((await invoke(key)).status).toBe(200);
    const before = dest.received.at(-1)!;
    expect(before.url).toBe('/first/echo');
    expect(before.headers['x-setting']).toBe('one');

    expect((await admin.patch(`/proxies/${id}`, { destination_url: dest.url('/second'), configuration: { setting: 'two' } })).status).toBe(200);
    expect((await invoke(key)).status).toBe(200);
    const after = dest.received.at(-1)!;
    expect(after.url).toBe('/second/echo');
    expect(after.headers['x-setting']).toBe('two');

    expect((await admin.delete(`/proxies/${id}`)).status).toBe(204);
    const sent = dest.received.length;
    expect((await invoke(key)).status).toBe(401);
    expect(dest.received.length).toBe(sent);
  });

  it("answers 401 to an anonymous invocation once the proxy's tenant is deleted", async () => {
    const tenant = await createTenant(test, 'leaving');
    const admin = asKey(test, tenant.management_key);
    const { key } = (await admin.post('/proxies', { name: 'open', destination_url: dest.url('/'), require_auth: false })).body as { key: string };
    for (let i = 0; i < 3; i++) expect((await invoke(key)).status).toBe(200);
    expect((await admin.delete('/tenants/self')).status).toBe(204);
    const sent = dest.received.length;
    expect((await invoke(key)).status).toBe(401);
    expect(dest.received.length).toBe(sent);
  });
});
