// Invocations without an API key, of proxies with require_auth false: expressions are forwarded as sent (never
// detokenized), the audit log names the actor anonymous, and each proxy key and client address has its own rate.
import type { Response } from 'supertest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../../support/test-app';
import { privateApp, startDestination, type Destination } from './destinations';

const CARD = '4242424242424242';

const expectVaultAnswer = (response: Response, status: number) => {
  expect({ status: response.status, error: response.headers['svc-proxy-error'] }).toEqual({ status, error: 'true' });
};

describe('ANY /proxy without an API key', () => {
  let test: TestApp;
  let dest: Destination;
  let caller: { id: string; key: string };
  let card: string;
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  /** A fresh proxy for each test: the rate is per proxy key. */
  const openProxy = async () => (await admin().post('/proxies', { name: 'open', destination_url: dest.url('/'), require_auth: false })).body as { id: string; key: string };
  const anonymous = (proxyKey: string) => test.http().post('/proxy/echo').set('SVC-PROXY-KEY', proxyKey);

  beforeAll(async () => {
    dest = await startDestination();
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: dest.host, VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND: '1', VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    caller = await createApplication(test, privateApp('caller', ['token:create', 'token:read', 'token:use'], 'reveal'));
    card = (await asKey(test, caller.key).post('/tokens', { type: 'card_number', data: CARD })).body.id;
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  it('forwards expressions as sent, records no use, and names the actor anonymous', async () => {
    const proxy = await openProxy();
    const response = await anonymous(proxy.key).set('x-card', `{{ ${card} }}`).set('content-type', 'application/json').send({ card: `{{ ${card} }}` });
    expect(response.status).toBe(200);
    const got = dest.last('/echo');
    expect(JSON.parse(got.body.toString())).toEqual({ card: `{{ ${card} }}` });
    expect(got.headers['x-card']).toBe(`{{ ${card} }}`);
    expect(response.text).not.toContain(CARD);
    expect((await admin().get(`/logs?entity_id=${card}`)).body.data.map((entry: { operation: string }) => entry.operation)).toEqual(['create']);
    const invoked = (await admin().get(`/logs?entity_id=${proxy.id}`)).body.data.filter((entry: { operation: string }) => entry.operation === 'invoke');
    expect(invoked).toEqual([expect.objectContaining({ actor_type: 'anonymous', actor_id: 'anonymous', entity_type: 'proxy', entity_id: proxy.id, message: 'Proxy invoked' })]);
  });

  it('detokenizes for a caller who gives an API key to the same proxy', async () => {
    const proxy = await openProxy();
    const response = await anonymous(proxy.key).set('SVC-API-KEY', caller.key).set('content-type', 'application/json').send({ card: `{{ ${card} }}` });
    expect(response.status).toBe(200);
    expect(JSON.parse(dest.last('/echo').body.toString())).toEqual({ card: CARD });
  });

  it('limits the rate per proxy key (429 with SVC-PROXY-ERROR), apart from other keys and from API-key callers', async () => {
    const proxy = await openProxy();
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const response = await anonymous(proxy.key).send();
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
    }
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(3);
    expect(statuses.at(-1)).toBe(429);
    expectVaultAnswer(limited!, 429);
    expect(limited!.headers['retry-after']).toMatch(/^\d+$/);
    // Another proxy's key, and a caller with an API key, have rates of their own.
    expect((await anonymous((await openProxy()).key).send()).status).toBe(200);
    expect((await anonymous(proxy.key).set('SVC-API-KEY', caller.key).send()).status).toBe(200);
    // The bucket refills.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await anonymous(proxy.key).send()).status).toBe(200);
  });

  it('limits guesses at keys too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await anonymous('GuessedKey123456789abcdefgh').send()).status);
    expect(statuses[0]).toBe(401);
    expect(statuses.at(-1)).toBe(429);
  });
});
