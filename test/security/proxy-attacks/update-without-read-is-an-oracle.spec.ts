// Once a finding, now a regression test: without proxy:read, a PATCH is refused only when it would change a hidden value, and accepted (200, nothing
// changed) when the value it gives equals the stored one. So a proxy:update holder tests guesses of the secrets it
// may not read: the destination URL, each configuration value (with two settings or more), which setting names exist,
// and whether transforms exist.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: PATCH without proxy:read answers whether a guess of a secret is right', () => {
  let test: TestApp;
  let dest: LocalHttpServer;
  let writer: { key: string };
  let proxyId: string;

  beforeAll(async () => {
    dest = await startLocalHttpServer((_req, res) => void res.end('ok'));
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    writer = await createApplication(test, { name: 'writer', type: 'management', permissions: ['proxy:create', 'proxy:update'] });
    const proxy = await asKey(test, BOOTSTRAP_KEY).post('/proxies', {
      name: 'charge',
      destination_url: dest.url('/v1/charges'),
      configuration: { api_key: 'sk_live_51HxQ2eZvKYlo2C', account: 'acct_1032D82eZvKYlo2C' },
      request_transforms: [{ type: 'code', code: 'module.exports = async () => ({})' }],
    });
    expect(proxy.status).toBe(201);
    proxyId = proxy.body.id;
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  const patch = async (body: unknown) => (await asKey(test, writer.key).patch(`/proxies/${proxyId}`, body)).status;

  it('the answer to a destination_url does not depend on whether it is the stored one', async () => {
    expect(await patch({ destination_url: dest.url('/v1/charges') })).toBe(await patch({ destination_url: dest.url('/v1/refunds') }));
  });

  it('the answer to a configuration value does not depend on whether it is the stored one', async () => {
    expect(await patch({ configuration: { account: 'acct_1032D82eZvKYlo2C' } })).toBe(await patch({ configuration: { account: 'acct_guess' } }));
  });

  it('the answer to removing a setting does not depend on whether the setting exists', async () => {
    expect(await patch({ configuration: { no_such_setting: null } })).toBe(await patch({ configuration: { account: null } }));
  });

  it('the answer to a list of transforms does not depend on whether it is the stored one', async () => {
    expect(await patch({ request_transforms: [{ type: 'code', code: 'module.exports = async () => ({})' }] })).toBe(await patch({ request_transforms: [] }));
  });
});
