// Routes that take no body: an empty body or `{}` is fine, any property is a 400 naming it ("Transport" in the API guide).
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

describe('routes that take no body', () => {
  let test: TestApp;
  const send = (method: 'post' | 'delete', path: string, key: string, text?: string) => {
    const request = test.http()[method](path).set('SVC-API-KEY', key);
    return text === undefined ? request : request.set('Content-Type', 'application/json').send(text);
  };

  beforeAll(async () => {
    // A webhook here hears only of proxy deletes, which this spec makes none of: nothing is sent to this host.
    test = await startTestApp({ VAULT_WEBHOOK_ALLOWED_HOSTS: 'hooks.example.com' });
  });
  afterAll(() => test.close());

  const anApplication = () => createApplication(test, { name: 'no-body', type: 'private', permissions: ['token:read'] });

  it.each([
    ['{"key":"key_prv_chosen","constructor":1}', ['key', 'constructor']],
    ['{"__proto__":{"x":1}}', ['__proto__']],
    ['{"force":true}', ['force']],
  ])('refuses POST /applications/{id}/regenerate with %s, naming each property, and keeps the old key', async (text, names) => {
    const app = await anApplication();
    const response = await send('post', `/applications/${app.id}/regenerate`, BOOTSTRAP_KEY, text);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors).sort()).toEqual([...names].sort());
    expect(response.body.key).toBeUndefined();
    expect((await asKey(test, app.key).get('/permissions')).status).toBe(200);
  });

  it('refuses DELETE /applications/{id} with {"force":true} and keeps the application', async () => {
    const app = await anApplication();
    const response = await send('delete', `/applications/${app.id}`, BOOTSTRAP_KEY, '{"force":true}');
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual({ force: ['force is not a known property'] });
    expect((await asKey(test, BOOTSTRAP_KEY).get(`/applications/${app.id}`)).status).toBe(200);
  });

  it('still regenerates and deletes with no body or {}', async () => {
    const app = await anApplication();
    expect((await send('post', `/applications/${app.id}/regenerate`, BOOTSTRAP_KEY)).status).toBe(200);
    expect((await send('post', `/applications/${app.id}/regenerate`, BOOTSTRAP_KEY, '{}')).status).toBe(200);
    expect((await send('delete', `/applications/${app.id}`, BOOTSTRAP_KEY, '{}')).status).toBe(204);
    const other = await anApplication();
    expect((await send('delete', `/applications/${other.id}`, BOOTSTRAP_KEY)).status).toBe(204);
  });

  it('refuses DELETE /tokens/{id} with a property, and deletes with {}', async () => {
    const app = await createApplication(test, {
      name: 'tokens',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:delete'] }],
    });
    const token = await asKey(test, app.key).post('/tokens', { type: 'token', data: 'x' });
    expect(token.status).toBe(201);
    const refused = await send('delete', `/tokens/${token.body.id}`, app.key, '{"toString":1,"cascade":true}');
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors).sort()).toEqual(['cascade', 'toString']);
    expect((await asKey(test, app.key).get(`/tokens/${token.body.id}`)).status).toBe(200);
    expect((await send('delete', `/tokens/${token.body.id}`, app.key, '{}')).status).toBe(204);
  });

  it('refuses DELETE /reactor-formulas/{id} with a property, and deletes with {}', async () => {
    const created = await asKey(test, BOOTSTRAP_KEY).post('/reactor-formulas', { name: 'no-body', description: 'd', type: 'private', code: 'module.exports = async () => ({});', configuration: [], request_parameters: [] });
    expect(created.status).toBe(201);
    const refused = await send('delete', `/reactor-formulas/${created.body.id}`, BOOTSTRAP_KEY, '{"force":true}');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual({ force: ['force is not a known property'] });
    expect((await asKey(test, BOOTSTRAP_KEY).get(`/reactor-formulas/${created.body.id}`)).status).toBe(200);
    expect((await send('delete', `/reactor-formulas/${created.body.id}`, BOOTSTRAP_KEY, '{}')).status).toBe(204);
  });

  it('refuses DELETE /webhooks/{id} with a property, and deletes with {}', async () => {
    const created = await asKey(test, BOOTSTRAP_KEY).post('/webhooks', { name: 'no-body', url: 'https://hooks.example.com/vault', events: ['proxy.deleted'] });
    expect(created.status).toBe(201);
    const refused = await send('delete', `/webhooks/${created.body.id}`, BOOTSTRAP_KEY, '{"force":true,"signing_secret":"x"}');
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.errors).sort()).toEqual(['force', 'signing_secret']);
    expect((await asKey(test, BOOTSTRAP_KEY).get(`/webhooks/${created.body.id}`)).status).toBe(200);
    expect((await send('delete', `/webhooks/${created.body.id}`, BOOTSTRAP_KEY, '{}')).status).toBe(204);
    expect((await asKey(test, BOOTSTRAP_KEY).get(`/webhooks/${created.body.id}`)).status).toBe(404);
  });

  it('refuses DELETE /tenants/self with a property, and keeps the tenant', async () => {
    const tenant = await createTenant(test, 'no-body tenant');
    const refused = await send('delete', '/tenants/self', tenant.management_key, '{"force":true}');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual({ force: ['force is not a known property'] });
    expect((await asKey(test, tenant.management_key).get('/tenants/self')).status).toBe(200);
    expect((await send('delete', '/tenants/self', tenant.management_key, '{}')).status).toBe(204);
  });

  it('names at most 20 properties and counts the rest on body', async () => {
    const app = await anApplication();
    const text = JSON.stringify(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, i])));
    const response = await send('delete', `/applications/${app.id}`, BOOTSTRAP_KEY, text);
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toHaveLength(21);
    expect(response.body.errors.body).toEqual(['body has 10 more unknown properties; only the first 20 are named']);
  });
});
