// Once a finding, now a regression test: a proxy's tokenize transform creates its tokens as the proxy's application with the correlation id
// "proxy" (invoke-proxy.ts tokenizingAs: `requestId: 'proxy'`) instead of the invocation's request id. The promise
// (conventions: "The id is in the request's log line, in the metadata of every event the request writes") breaks, and
// tokens a transform made (the laundering of proxy-attacks/response-tokenize-launders-token-data.spec.ts among them)
// cannot be tied to the invocation, its caller or its `use` records.
import type { EventStore } from '@vault/application';
import { EVENT_STORE } from '@vault/nest';
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: tokens a transform creates lose the request id', () => {
  let test: TestApp;
  let dest: LocalHttpServer;

  beforeAll(async () => {
    dest = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(req.body);
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it.each(['request', 'response'] as const)('a %s tokenize transform writes TokenCreated with the invocation request id', async (direction) => {
    const app = await createApplication(test, { name: 'inbound', type: 'private', permissions: ['token:create', 'token:read'] });
    const transform = [{ type: 'tokenize', fields: [{ json_path: '$.card', token: { type: 'card_number' } }] }];
    const proxy = await asKey(test, BOOTSTRAP_KEY).post('/proxies', {
      name: `tokenize ${direction}`,
      destination_url: dest.url('/'),
      require_auth: false,
      application: { id: app.id },
      [`${direction}_transforms`]: transform,
    });
    expect(proxy.status).toBe(201);
    const requestId = `attack-${direction}-1`;
    const answer = await test.http().post('/proxy').set('SVC-PROXY-KEY', proxy.body.key).set('X-Request-Id', requestId).send({ card: '4111111111111111' });
    expect(answer.status).toBe(200);
    const tokenId = answer.body.card as string;
    const tenantId = (await asKey(test, app.key).get(`/tokens/${tokenId}`)).body.tenant_id as string;
    const events = await test.app.get<symbol, EventStore>(EVENT_STORE).readStream(`token-${tenantId}_${tokenId}`);
    // Observed while the bug exists: correlation_id "proxy".
    expect(events[0].metadata.correlation_id).toBe(requestId);
  });
});
