// What the hosted vault's JS SDK sends or reads about proxies beyond our own API's shape: `?id=` on the list, and
// `applicationId` on the proxy. Each test asserts the compatible behaviour.
import type { Proxy as SdkProxy } from '@basis-theory/basis-theory-js/types/models';
import { startSdkTestApp, type BasisTheoryClient, type SdkTestApp } from '../../support/basis-theory-sdk';
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { BOOTSTRAP_KEY, createApplication } from '../../support/test-app';

describe('the Basis Theory JS SDK and our proxies: what it sends beyond our shape', () => {
  let api: SdkTestApp;
  let destination: LocalHttpServer;
  let management: BasisTheoryClient;

  beforeAll(async () => {
    destination = await startLocalHttpServer((_request, response) => {
      response.end();
    });
    api = await startSdkTestApp({ VAULT_PROXY_ALLOWED_HOSTS: destination.host });
    management = await api.sdk(BOOTSTRAP_KEY);
  });

  afterAll(async () => {
    await api?.close();
    await destination?.close();
  });

  // The SDK declares `id?: string | string[]` on its list query and sends `GET /proxies/?id=<id>[&id=<id>]`.
  it('list({ id }) answers only the proxies named', async () => {
    const a = await management.proxies.create({ name: 'list a', destinationUrl: destination.url('/a') });
    const b = await management.proxies.create({ name: 'list b', destinationUrl: destination.url('/b') });
    await management.proxies.create({ name: 'list c', destinationUrl: destination.url('/c') });

    const one = await management.proxies.list({ id: a.id });
    expect(api.wire[api.wire.length - 1].url).toBe(`/proxies/?id=${a.id}`);
    expect(one.data.map((proxy) => proxy.id)).toEqual([a.id]);
    expect(one.pagination.totalItems).toBe(1);

    const two = await management.proxies.list({ id: [a.id, b.id] });
    expect(api.wire[api.wire.length - 1].url).toBe(`/proxies/?id=${a.id}&id=${b.id}`);
    expect(two.data.map((proxy) => proxy.id).sort()).toEqual([a.id, b.id].sort());
  });

  // The SDK's Proxy model reads the application as `applicationId` (application_id on the wire), beside our `application`.
  it('a proxy with an application reads back with applicationId', async () => {
    const app = await createApplication(api.test, { name: 'sdk-app', type: 'private', permissions: ['token:create'] });
    const created = await management.proxies.create({ name: 'list app', destinationUrl: destination.url('/app'), application: { id: app.id } });
    const read: SdkProxy = await management.proxies.retrieve(created.id);
    expect(read.applicationId).toBe(app.id);
  });
});
