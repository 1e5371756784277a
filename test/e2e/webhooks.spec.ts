// Webhooks from the outside: a local receiver gets the tenant's events as they are appended, signed, in log order,
// filtered by type, never another tenant's, never any data; disabled and deleted webhooks get nothing more; a
// receiver that fails is retried until it recovers, or until the retry window ends and the next event goes on.
import { createHmac } from 'node:crypto';
import { startLocalHttpServer, type LocalHttpServer, type ReceivedRequest } from '../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, type TestApp } from '../support/test-app';

const waitUntil = async (check: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> => {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

const verify = (secret: string, request: ReceivedRequest): boolean => {
  const header = String(request.headers['svc-webhook-signature'] ?? '');
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  return createHmac('sha256', secret).update(`${match[1]}.${request.body}`).digest('hex') === match[2];
};

describe('webhooks', () => {
  let test: TestApp;
  let receiver: LocalHttpServer;
  /** Per path: the statuses to answer in order (then 200). */
  const scripted = new Map<string, number[]>();
  let writer: string;

  beforeAll(async () => {
    receiver = await startLocalHttpServer(async (request, response) => {
      // A slow receiver answers after a second.
      if (request.path === '/slow') await new Promise((resolve) => setTimeout(resolve, 1000));
      const plan = scripted.get(request.path) ?? [];
      response.statusCode = plan.shift() ?? 200;
      response.end('ok');
    });
    test = await startTestApp({ VAULT_WEBHOOK_ALLOWED_HOSTS: receiver.host, VAULT_WEBHOOK_RETRY_WINDOW_MS: '3000', VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const all = ['token:create', 'token:read', 'token:update', 'token:delete'];
    writer = (await createApplication(test, { name: 'writer', type: 'private', permissions: all, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: all }] })).key;
  });
  afterAll(async () => {
    await test?.close();
    await receiver?.close();
  });

  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const at = (path: string) => receiver.received.filter((r) => r.path === path);
  const createWebhook = async (path: string, events: string[], key = BOOTSTRAP_KEY) => {
    const created = await asKey(test, key).post('/webhooks', { name: `hook ${path}`, url: receiver.url(path), events });
    expect(created.status).toBe(201);
    return created.body as { id: string; signing_secret: string };
  };
  const createToken = async (data = '4242424242424242', key = writer) => {
    const created = await asKey(test, key).post('/tokens', { type: 'card_number', data, metadata: { customer: 'acme-77' } });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  it('creates, reads, lists, replaces and deletes a webhook; the signing secret only in the create answer', async () => {
    const created = await admin().post('/webhooks', { name: 'crud', url: receiver.url('/crud'), events: ['token.created', 'token.created', 'proxy.deleted'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'crud', url: receiver.url('/crud'), events: ['token.created', 'proxy.deleted'], enabled: true });
    expect(created.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const { id } = created.body;

    const read = await admin().get(`/webhooks/${id}`);
    expect(read.status).toBe(200);
    expect(read.body.signing_secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(created.body.signing_secret);

    const listed = await admin().get('/webhooks?size=100');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((w: { id: string }) => w.id)).toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain('signing_secret');

    const replaced = await admin().put(`/webhooks/${id}`, { name: 'crud 2', url: receiver.url('/crud2'), events: ['tenant.updated'], enabled: false });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, name: 'crud 2', events: ['tenant.updated'], enabled: false });
    expect(replaced.body.modified_at).toEqual(expect.any(String));

    expect((await admin().delete(`/webhooks/${id}`)).status).toBe(204);
    expect((await admin().get(`/webhooks/${id}`)).status).toBe(404);
    expect((await admin().get(`/webhooks/${id}/deliveries`)).status).toBe(404);
    expect((await admin().delete(`/webhooks/${id}`)).status).toBe(404);

    const logged = await admin().get(`/logs?entity_type=webhook&entity_id=${id}`);
    expect(logged.status).toBe(200);
    expect(logged.body.data.map((entry: { operation: string }) => entry.operation)).toEqual(['delete', 'update', 'create']);
    expect(JSON.stringify(logged.body)).not.toContain(created.body.signing_secret);
  });

  it('answers 400 naming the field for a URL off the allowed hosts, an unknown event type, no events, a secret given', async () => {
    const off = await admin().post('/webhooks', { name: 'x', url: 'https://elsewhere.example.com/hook', events: ['token.created'] });
    expect(off.status).toBe(400);
    expect(off.body.errors.url[0]).toContain('VAULT_WEBHOOK_ALLOWED_HOSTS');
    const unknown = await admin().post('/webhooks', { name: 'x', url: receiver.url('/x'), events: ['token.created', 'token.read'] });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.errors)).toEqual(['events[1]']);
    const none = await admin().post('/webhooks', { name: 'x', url: receiver.url('/x'), events: [] });
    expect(none.status).toBe(400);
    expect(none.body.errors.events).toBeDefined();
    const secret = await admin().post('/webhooks', { name: 'x', url: receiver.url('/x'), events: ['token.created'], signing_secret: 'mine' });
    expect(secret.status).toBe(400);
    expect(secret.body.errors.signing_secret).toBeDefined();
    const unnamed = await admin().post('/webhooks', { url: receiver.url('/x'), events: ['token.created'], enabled: 'yes' });
    expect(unnamed.status).toBe(400);
    expect(Object.keys(unnamed.body.errors).sort()).toEqual(['enabled', 'name']);
  });

  it('keeps a tenant to 25 webhooks (422), and takes a new one once one is deleted', async () => {
    const other = await createTenant(test, 'many webhooks');
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push((await createWebhook(`/many-${i}`, ['tenant.updated'], other.management_key)).id);
    const refused = await asKey(test, other.management_key).post('/webhooks', { name: 'one more', url: receiver.url('/x'), events: ['tenant.updated'] });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain('at most 25 webhooks');
    expect((await asKey(test, other.management_key).delete(`/webhooks/${ids[0]}`)).status).toBe(204);
    await createWebhook('/many-again', ['tenant.updated'], other.management_key);
  });

  it('needs tenant:update to write and tenant:read to read', async () => {
    const reader = (await createApplication(test, { name: 'reader', type: 'management', permissions: ['tenant:read'] })).key;
    const hook = await createWebhook('/perm', ['token.created']);
    expect((await asKey(test, reader).post('/webhooks', { name: 'x', url: receiver.url('/x'), events: ['token.created'] })).status).toBe(403);
    expect((await asKey(test, reader).put(`/webhooks/${hook.id}`, { name: 'x', url: receiver.url('/x'), events: ['token.created'] })).status).toBe(403);
    expect((await asKey(test, reader).delete(`/webhooks/${hook.id}`)).status).toBe(403);
    expect((await asKey(test, reader).get(`/webhooks/${hook.id}`)).status).toBe(200);
    expect((await asKey(test, reader).get(`/webhooks/${hook.id}/deliveries`)).status).toBe(200);
    expect((await asKey(test, writer).get('/webhooks')).status).toBe(403);
  });

  it('delivers a signed body that holds ids and types only, never data, masks, metadata or fingerprints', async () => {
    const hook = await createWebhook('/signed', ['token.created', 'token.updated', 'token.deleted']);
    const id = await createToken('4111111111111111');
    expect((await asKey(test, writer).patch(`/tokens/${id}`, { metadata: { customer: 'globex-12' } })).status).toBe(200);
    expect((await asKey(test, writer).delete(`/tokens/${id}`)).status).toBe(204);
    await waitUntil(() => at('/signed').length >= 3);
    const bodies = at('/signed').map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type)).toEqual(['token.created', 'token.updated', 'token.deleted']);
    for (const [i, request] of at('/signed').entries()) {
      expect(verify(hook.signing_secret, request)).toBe(true);
      expect(verify('whsec_wrong', request)).toBe(false);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['svc-webhook-id']).toBe(bodies[i].id);
      expect(request.headers['svc-webhook-event']).toBe(bodies[i].type);
      expect(Object.keys(bodies[i]).sort()).toEqual(['created_at', 'data', 'id', 'tenant_id', 'type']);
      expect(bodies[i].data).toEqual({ id, type: 'card_number', actor_id: expect.any(String) });
      expect(bodies[i].id).toMatch(/^[0-9a-f-]{36}$/);
      for (const secret of ['4111111111111111', '1111', 'acme-77', 'globex-12', 'XXXX']) expect(request.body).not.toContain(secret);
    }
    // Three events, three ids.
    expect(new Set(bodies.map((b) => b.id)).size).toBe(3);
  });

  it('delivers in log order, each event once, and only the types asked for', async () => {
    await createWebhook('/ordered', ['token.created']);
    await createWebhook('/deletes', ['token.deleted']);
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await createToken());
    await asKey(test, writer).delete(`/tokens/${ids[3]}`);
    await waitUntil(() => at('/ordered').length >= 8 && at('/deletes').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(at('/ordered').map((r) => JSON.parse(r.body).data.id)).toEqual(ids);
    expect(at('/deletes').map((r) => JSON.parse(r.body))).toEqual([expect.objectContaining({ type: 'token.deleted', data: expect.objectContaining({ id: ids[3] }) })]);
  });

  it('never sends another tenant an event, and delivers none of a disabled webhook, then only new ones once enabled again', async () => {
    const other = await createTenant(test, 'other tenant');
    const otherHook = await createWebhook('/other', ['token.created', 'application.created'], other.management_key);
    const hook = await createWebhook('/toggled', ['token.created']);
    const put = (enabled: boolean) => admin().put(`/webhooks/${hook.id}`, { name: 'toggled', url: receiver.url('/toggled'), events: ['token.created'], enabled });
    expect((await put(false)).status).toBe(200);
    const whileDisabled = await createToken();
    expect((await put(true)).status).toBe(200);
    const afterwards = await createToken();
    await waitUntil(() => at('/toggled').length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(at('/toggled').map((r) => JSON.parse(r.body).data.id)).toEqual([afterwards]);
    expect(at('/toggled').map((r) => r.body).join()).not.toContain(whileDisabled);
    // The other tenant's webhook heard nothing of this tenant's writes, and hears its own.
    expect(at('/other')).toEqual([]);
    await createApplication(test, { name: 'theirs', type: 'private', permissions: ['token:create'] }, other.management_key);
    await waitUntil(() => at('/other').length >= 1);
    expect(at('/other').map((r) => JSON.parse(r.body))).toEqual([expect.objectContaining({ type: 'application.created', tenant_id: other.tenant_id })]);
    expect((await admin().get(`/webhooks/${otherHook.id}`)).status).toBe(404);
  });

  it("delays no other webhook's deliveries behind a slow receiver", async () => {
    await createWebhook('/slow', ['token.created']);
    await createWebhook('/quick', ['token.created']);
    const ids = [await createToken(), await createToken(), await createToken()];
    await waitUntil(() => at('/quick').length >= 3, 2000);
    expect(at('/quick').map((r) => JSON.parse(r.body).data.id)).toEqual(ids);
    expect(at('/slow').length).toBeLessThan(3);
    await waitUntil(() => at('/slow').length >= 3, 8000);
    expect(at('/slow').map((r) => JSON.parse(r.body).data.id)).toEqual(ids);
  });

  it('stops delivering at once when a webhook is deleted', async () => {
    const hook = await createWebhook('/deleted', ['token.created']);
    await createToken();
    await waitUntil(() => at('/deleted').length >= 1);
    expect((await admin().delete(`/webhooks/${hook.id}`)).status).toBe(204);
    await createToken();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(at('/deleted')).toHaveLength(1);
  });

  it('stops retrying at once when a webhook is deleted between two attempts', async () => {
    scripted.set('/dying', [500, 500, 500, 500]);
    const hook = await createWebhook('/dying', ['token.created']);
    await createToken();
    await waitUntil(() => at('/dying').length >= 1);
    expect((await admin().delete(`/webhooks/${hook.id}`)).status).toBe(204);
    // The retry was due 2 s after the first attempt.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(at('/dying')).toHaveLength(1);
  });

  it('sends a retry where the webhook points now, once its URL was fixed', async () => {
    scripted.set('/broken', [500, 500, 500]);
    const hook = await createWebhook('/broken', ['token.created']);
    const id = await createToken();
    await waitUntil(() => at('/broken').length >= 1);
    expect((await admin().put(`/webhooks/${hook.id}`, { name: 'fixed', url: receiver.url('/fixed'), events: ['token.created'] })).status).toBe(200);
    await waitUntil(() => at('/fixed').length >= 1, 6000);
    expect(at('/fixed').map((r) => JSON.parse(r.body).data.id)).toEqual([id]);
    expect(verify(hook.signing_secret, at('/fixed')[0])).toBe(true);
  });

  it('retries a receiver that fails until it recovers, and lists the delivery with its attempts', async () => {
    scripted.set('/flaky', [500, 503]);
    const hook = await createWebhook('/flaky', ['token.created']);
    const first = await createToken();
    const second = await createToken();
    // First retry within 2 s, the second 4 s later.
    await waitUntil(() => at('/flaky').length >= 4, 15000);
    expect(at('/flaky').map((r) => JSON.parse(r.body).data.id)).toEqual([first, first, first, second]);
    await waitUntil(async () => (await admin().get(`/webhooks/${hook.id}/deliveries`)).body.data?.length === 2);
    const deliveries = (await admin().get(`/webhooks/${hook.id}/deliveries`)).body;
    expect(deliveries.pagination).toMatchObject({ total_items: 2, page_number: 1 });
    // Newest (latest in the log) first.
    expect(deliveries.data).toEqual([
      expect.objectContaining({ event_type: 'token.created', state: 'delivered', attempts: 1, last_status: 200, next_attempt_at: null }),
      expect.objectContaining({ event_type: 'token.created', state: 'delivered', attempts: 3, last_status: 200 }),
    ]);
    expect(deliveries.data[1].event_id).toBe(JSON.parse(at('/flaky')[0].body).id);
  }, 30000);

  it('counts attempts by state and status, and how far the webhooks are behind, in /metrics', async () => {
    await createWebhook('/metrics', ['token.created']);
    await createToken();
    await waitUntil(() => at('/metrics').length >= 1);
    const text = (await test.http().get('/metrics')).text;
    expect(text).toMatch(/vault_webhook_deliveries_total\{state="delivered",status="200"\} [1-9]/);
    expect(text).toMatch(/vault_webhook_delivery_lag_seconds_count [1-9]/);
    expect(text).toMatch(/^vault_webhook_lag_events \d+$/m);
    expect(text).toMatch(/^vault_webhook_lag_seconds [\d.e+-]+$/m);
  });

  it('marks a delivery failed once the retry window has passed, and goes on with the next event', async () => {
    // Attempts at 0, 2 and 6 s: the third is past the 3 s window, so the delivery is failed after it.
    scripted.set('/down', [500, 500, 500]);
    const hook = await createWebhook('/down', ['token.created']);
    const first = await createToken();
    const second = await createToken();
    await waitUntil(() => at('/down').some((r) => JSON.parse(r.body).data.id === second), 20000);
    await waitUntil(async () => (await admin().get(`/webhooks/${hook.id}/deliveries`)).body.data?.[0]?.state === 'delivered');
    const deliveries = (await admin().get(`/webhooks/${hook.id}/deliveries`)).body.data as Array<{ state: string; attempts: number; last_status: number }>;
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]).toMatchObject({ state: 'failed', attempts: 3, last_status: 500, next_attempt_at: null });
    expect(at('/down').map((r) => JSON.parse(r.body).data.id)).toEqual([first, first, first, second]);
  }, 30000);
});
