// The service's manners: problem details, request ids, body limits, media types, rate limits, health, docs, no secrets in logs.
import { PROJECTOR } from '@vault/nest';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

describe('HTTP manners', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '5' });
  });
  afterAll(() => test.close());

  const post = (body: string, type = 'application/json') =>
    test.http().post('/applications').set('SVC-API-KEY', BOOTSTRAP_KEY).set('Content-Type', type).send(body);

  it('echoes X-Request-Id, or generates one', async () => {
    const echoed = await test.http().get('/health/live').set('X-Request-Id', 'abc-123');
    expect(echoed.headers['x-request-id']).toBe('abc-123');
    const generated = await test.http().get('/health/live');
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const failed = await test.http().get('/applications');
    expect(failed.status).toBe(401);
    expect(failed.headers['x-request-id']).toEqual(expect.any(String));
  });

  it('answers 400 for a body that is not valid JSON', async () => {
    const response = await post('{"name": ');
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(response.body.type).toBe('https://httpstatuses.io/400');
  });

  it('answers 400 for a JSON body that is not an object', async () => {
    expect((await post('[1,2]')).status).toBe(400);
    expect((await post('"text"')).status).toBe(400);
  });

  it('answers 415 for a body that is not application/json', async () => {
    const response = await post('name=x', 'application/x-www-form-urlencoded');
    expect(response.status).toBe(415);
    expect(response.body.status).toBe(415);
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const response = await post(JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), type: 'private' }));
    expect(response.status).toBe(413);
    expect(response.body.status).toBe(413);
  });

  it('answers 404 as problem details for an unknown route', async () => {
    const response = await test.http().get('/nothing-here').set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  it('reports liveness and readiness with the projection lag', async () => {
    const response = await test.http().get('/health');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'ok', live: true, ready: true, projection: { lag_events: 0, caught_up: true } });
    expect((await test.http().get('/health/ready')).status).toBe(200);
  });

  it('serves the OpenAPI document and the browsable docs', async () => {
    const doc = await test.http().get('/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/permissions', '/applications', '/applications/{id}', '/reactor-formulas', '/reactor-formulas/{id}', '/reator-formula/{id}', '/tokens', '/tokens/{id}', '/tokens/search']));
    const docs = await test.http().get('/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/swagger/i);
  });

  it('limits requests per key with 429 and Retry-After, without touching other keys', async () => {
    const app = await createApplication(test, { name: 'chatty', type: 'private', permissions: ['token:read'] });
    const statuses: number[] = [];
    let retryAfter: string | undefined;
    for (let i = 0; i < 15; i++) {
      const r = await test.http().get('/permissions').set('SVC-API-KEY', app.key);
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers['retry-after'];
    }
    expect(statuses.slice(0, 10).every((s) => s === 200)).toBe(true);
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    const other = await createApplication(test, { name: 'quiet', type: 'private', permissions: ['token:read'] });
    expect((await test.http().get('/permissions').set('SVC-API-KEY', other.key)).status).toBe(200);
  });

  it('never writes keys to the logs', async () => {
    const app = await createApplication(test, { name: 'secret-holder', type: 'private', permissions: ['token:read'] });
    await test.http().get('/permissions').set('SVC-API-KEY', app.key);
    const all = test.logs.join('');
    expect(test.logs.length).toBeGreaterThan(5);
    expect(all).toContain('"msg":"request"');
    expect(all).not.toContain(app.key);
    expect(all).not.toContain(BOOTSTRAP_KEY);
  });
});

describe('read-your-writes', () => {
  it('answers a write after the read model applied it, or marks it X-Projection-Pending when VAULT_WRITE_WAIT_MS runs out', async () => {
    const waiting = await startTestApp();
    try {
      const created = await waiting.http().post('/applications').set('SVC-API-KEY', BOOTSTRAP_KEY).send({ name: 'ryw', type: 'private', permissions: ['token:read'] });
      expect(created.status).toBe(201);
      expect(created.headers['x-projection-pending']).toBeUndefined();
      expect((await waiting.http().get(`/applications/${created.body.id}`).set('SVC-API-KEY', BOOTSTRAP_KEY)).status).toBe(200);
    } finally {
      await waiting.close();
    }
    const impatient = await startTestApp({ VAULT_WRITE_WAIT_MS: '150' });
    try {
      // A projector that has stopped (as if it were lagging far behind) cannot apply the write in time.
      await impatient.app.get<{ stop(): Promise<void> }>(PROJECTOR).stop();
      const started = Date.now();
      const created = await impatient.http().post('/applications').set('SVC-API-KEY', BOOTSTRAP_KEY).send({ name: 'ryw', type: 'private', permissions: ['token:read'] });
      expect(created.status).toBe(201);
      expect(created.headers['x-projection-pending']).toBe('true');
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      await impatient.close();
    }
  });
});
