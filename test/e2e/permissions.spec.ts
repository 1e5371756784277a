import { PERMISSIONS } from '@vault/domain';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const SPEC_ROWS: Array<[string, string, string[]]> = [
  ['token:create', 'Create tokens', ['public', 'private']],
  ['token:update', 'Update tokens', ['public', 'private']],
  ['token:read', 'Read tokens', ['private', 'expiring']],
  ['token:search', 'Search tokens', ['private']],
  ['token:delete', 'Delete tokens', ['private']],
  ['token:use', "Use tokens in the service's own services (for example proxy, reactors)", ['private']],
  ['tenant:read', 'Read tenants', ['management']],
  ['tenant:update', 'Update tenants', ['management']],
  ['tenant:delete', 'Delete tenants', ['management']],
  ['application:read', 'Read applications', ['management']],
  ['application:create', 'Create applications', ['management']],
  ['application:update', 'Update applications and regenerate API keys', ['management']],
  ['application:delete', 'Delete applications', ['management']],
  ['log:read', 'Read audit logs', ['management']],
  ['reactor:read', 'Read reactor formulas and reactors', ['management']],
  ['reactor:create', 'Create reactor formulas and reactors', ['management']],
  ['reactor:update', 'Update reactor formulas and reactors', ['management']],
  ['reactor:delete', 'Delete reactor formulas and reactors', ['management']],
  ['proxy:read', 'Read proxies', ['management']],
  ['proxy:create', 'Create proxies', ['management']],
  ['proxy:update', 'Update proxies', ['management']],
  ['proxy:delete', 'Delete proxies', ['management']],
  ['tenant:member:read', 'Read tenant members', ['management']],
  ['tenant:member:update', 'Update tenant members', ['management']],
  ['tenant:member:delete', 'Delete tenant members', ['management']],
  ['tenant:invitation:create', 'Create tenant invitations', ['management']],
  ['tenant:invitation:read', 'Read tenant invitations', ['management']],
  ['tenant:invitation:update', 'Update tenant invitations', ['management']],
  ['tenant:invitation:delete', 'Delete tenant invitations', ['management']],
  ['report:read', 'Read reports', ['management']],
];

describe('GET /permissions', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test.close());

  it('returns exactly the catalogue of the permissions page, in its order', async () => {
    const response = await test.http().get('/permissions').set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(SPEC_ROWS.map(([type, description, application_types]) => ({ type, description, application_types })));
    expect(PERMISSIONS).toHaveLength(30);
  });

  it.each([
    ['public', ['token:create', 'token:update']],
    ['expiring', ['token:read']],
    ['private', ['token:create', 'token:update', 'token:read', 'token:search', 'token:delete', 'token:use']],
  ])('filters by application_type=%s', async (type, expected) => {
    const response = await test.http().get(`/permissions?application_type=${type}`).set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(response.status).toBe(200);
    expect(response.body.map((p: { type: string }) => p.type)).toEqual(expected);
  });

  it('gives management the 24 management permissions', async () => {
    const response = await test.http().get('/permissions?application_type=management').set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(response.body).toHaveLength(24);
  });

  it('answers 400 naming application_type for an unknown type', async () => {
    const response = await test.http().get('/permissions?application_type=robot').set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(response.body.errors.application_type).toBeDefined();
  });

  it.each(['application_type[]=expiring', 'application_type[x]=', 'application_type=expiring&application_type=private'])(
    'answers 400 naming application_type for %s, never an unfiltered 200',
    async (query) => {
      const response = await test.http().get(`/permissions?${query}`).set('SVC-API-KEY', BOOTSTRAP_KEY);
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors)).toEqual(['application_type']);
    },
  );

  it('accepts a trailing slash, as existing SDKs send one', async () => {
    const response = await test.http().get('/permissions/').set('SVC-API-KEY', BOOTSTRAP_KEY);
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(30);
  });

  it('needs a valid key but no particular permission', async () => {
    expect((await test.http().get('/permissions')).status).toBe(401);
    const app = await createApplication(test, { name: 'public app', type: 'public', permissions: ['token:create'] });
    const response = await test.http().get('/permissions').set('SVC-API-KEY', app.key);
    expect(response.status).toBe(200);
  });
});
