// The escalation report, replayed over HTTP: a management key with few permissions must not mint or take over a
// more powerful one (management permissions are granted only by those who hold them).
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp, asKey } from '../support/test-app';

describe('application escalation', () => {
  let test: TestApp;
  const as = (key: string) => asKey(test, key);
  const management = (name: string, permissions: string[]) => ({ name, type: 'management', permissions });
  const names = async () => {
    const list = await as(BOOTSTRAP_KEY).get('/applications?size=100');
    return list.body.data.map((a: { name: string }) => a.name);
  };

  let creator: { id: string; key: string };
  let manager: { id: string; key: string };
  let powerful: { id: string; key: string };

  beforeAll(async () => {
    test = await startTestApp();
    creator = await createApplication(test, management('only-create', ['application:create']));
    manager = await createApplication(test, management('manager', ['application:create', 'application:update', 'application:delete']));
    powerful = await createApplication(test, management('powerful', ['application:read', 'application:delete', 'reactor:create']));
  });
  afterAll(() => test.close());

  it('refuses (403) a holder of only application:create creating application:delete and reactor:create, naming them', async () => {
    const attack = await as(creator.key).post('/applications', management('escalated', ['application:delete', 'reactor:create']));
    expect(attack.status).toBe(403);
    expect(attack.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(attack.body.detail).toContain('application:delete');
    expect(attack.body.detail).toContain('reactor:create');
    expect(attack.body.key).toBeUndefined();
    expect(JSON.stringify(attack.body)).not.toMatch(/key_[a-z]{3}_/);
    expect(await names()).not.toContain('escalated');
  });

  it('lets the same key create an application with token permissions only (201), whose key works', async () => {
    const created = await as(creator.key).post('/applications', {
      name: 'token-app',
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete', 'token:use'],
    });
    expect(created.status).toBe(201);
    expect((await as(created.body.key).get('/permissions')).status).toBe(200);
  });

  it('lets it create a management application holding no more than it holds', async () => {
    const created = await as(creator.key).post('/applications', management('peer', ['application:create']));
    expect(created.status).toBe(201);
  });

  it.each<[string, (key: string) => Promise<{ status: number; body: { detail?: string } }>]>([
    ['update', (key) => as(key).put(`/applications/${powerful.id}`, management('taken-over', ['application:delete']))],
    ['regenerate', (key) => as(key).post(`/applications/${powerful.id}/regenerate`)],
    ['delete', (key) => as(key).delete(`/applications/${powerful.id}`)],
  ])('refuses (403) to %s an application holding management permissions the caller lacks', async (_action, attempt) => {
    const response = await attempt(manager.key);
    expect(response.status).toBe(403);
    expect(response.body.detail).toContain('application:read');
    expect(response.body.detail).toContain('reactor:create');
    // The target is untouched: same settings, same key.
    const { key: _key, ...before } = powerful;
    expect((await as(BOOTSTRAP_KEY).get(`/applications/${powerful.id}`)).body).toEqual(before);
    expect((await as(powerful.key).get('/applications')).status).toBe(200);
  });

  it('refuses (403) an update that adds a management permission the caller lacks, and the key gains nothing', async () => {
    const target = await createApplication(test, management('small', ['application:create']));
    const response = await as(manager.key).put(`/applications/${target.id}`, management('small', ['application:create', 'reactor:create']));
    expect(response.status).toBe(403);
    expect(response.body.detail).toContain('reactor:create');
    const formula = await as(target.key).post('/reactor-formulas', {
      name: 'should not exist',
      type: 'private',
      code: 'module.exports = async function () { return {}; };',
    });
    expect(formula.status).toBe(403);
  });

  it('lets a caller update, regenerate and delete applications within its own permissions', async () => {
    const target = await createApplication(test, management('subordinate', ['application:create']));
    expect((await as(manager.key).put(`/applications/${target.id}`, management('subordinate', ['application:update']))).status).toBe(200);
    const regenerated = await as(manager.key).post(`/applications/${target.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    expect((await as(target.key).get('/permissions')).status).toBe(401);
    expect((await as(manager.key).delete(`/applications/${target.id}`)).status).toBe(204);
    expect((await as(regenerated.body.key).get('/permissions')).status).toBe(401);
  });

  it('never lets a key minted by the attack work: none was issued and none authenticates', async () => {
    const attempts = await Promise.all([
      as(creator.key).post('/applications', management('escalated-2', ['application:delete'])),
      as(creator.key).post('/applications', management('escalated-3', ['reactor:create', 'application:create'])),
    ]);
    for (const attempt of attempts) expect(attempt.status).toBe(403);
    expect(attempts.map((a) => a.body.key)).toEqual([undefined, undefined]);
    expect((await names()).filter((name: string) => name.startsWith('escalated'))).toEqual([]);
    // The attacker's key itself still cannot delete anything.
    expect((await as(creator.key).delete(`/applications/${powerful.id}`)).status).toBe(403);
  });
});
