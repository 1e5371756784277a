// The log as an attacker who reads it would: distinctive secrets sent every way a caller can send them (token data,
// metadata, masks, search queries, paths, query strings, bad bodies, bad keys) must never appear in it.
import { randomUUID } from 'node:crypto';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

describe('logs', () => {
  let test: TestApp;
  beforeAll(async () => {
    // startTestApp logs at debug, so every line any level could write is here.
    test = await startTestApp();
  });
  afterAll(() => test.close());

  const lines = () => test.logs.flatMap((chunk) => chunk.split('\n')).filter((line) => line !== '');

  it('are JSON lines with time, level and msg, and put Nest\'s start-up chatter at debug', () => {
    const parsed = lines().map((line) => JSON.parse(line));
    expect(parsed.length).toBeGreaterThan(0);
    for (const entry of parsed) {
      expect(entry).toEqual(expect.objectContaining({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: expect.stringMatching(/^(debug|info|warn|error)$/), msg: expect.any(String) }));
    }
    const nest = parsed.filter((entry) => ['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'NestFactory', 'NestApplication'].includes(entry.context));
    expect(nest.some((entry) => entry.context === 'RouterExplorer')).toBe(true);
    expect(nest.every((entry) => entry.level === 'debug')).toBe(true);
  });

  it('never hold an API key or any token data, metadata, mask, query or path value a caller sent', async () => {
    const marker = `Zq9${randomUUID().slice(0, 8)}`;
    const secret = (what: string) => `${marker}-${what}`;
    const secrets = {
      ssn: '918-27-3645',
      card: '4111111111111111',
      data: secret('json-data'),
      metadataValue: secret('metadata-value'),
      metadataKey: `k${marker}`,
      mask: secret('mask'),
      query: secret('query'),
      path: secret('path'),
      queryString: secret('query-string'),
      badJson: secret('bad-json'),
      wrongType: secret('wrong-type'),
      badKey: secret('bad-key'),
      badField: secret('bad-field'),
      appName: secret('app-name'),
    };
    const app = await createApplication(test, {
      name: secrets.appName,
      type: 'private',
      permissions: ['token:create', 'token:read', 'token:update', 'token:search', 'token:delete'],
    });
    const as = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => test.http()[method](path).set('SVC-API-KEY', app.key);

    const ssn = await as('post', '/tokens').send({ type: 'social_security_number', data: secrets.ssn, metadata: { [secrets.metadataKey]: secrets.metadataValue } });
    const card = await as('post', '/tokens').send({ type: 'card_number', data: secrets.card, mask: `{{ data | reveal_last: 4 }}${secrets.mask}` });
    const json = await as('post', '/tokens').send({ type: 'token', data: { note: secrets.data } });
    expect([ssn.status, card.status, json.status]).toEqual([201, 201, 201]);
    expect((await as('patch', `/tokens/${json.body.id}`).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify({ data: { note: `${secrets.data}2` } }))).status).toBe(200);
    expect((await as('get', `/tokens/${ssn.body.id}`)).status).toBe(200);
    expect((await as('post', '/tokens/search').send({ query: `data:${secrets.ssn} OR metadata.${secrets.metadataKey}:"${secrets.metadataValue}"` })).status).toBe(200);
    expect((await as('post', '/tokens/search').send({ query: `data:(${secrets.query}` })).status).toBe(400);
    // Refused inputs: a value where an id belongs, a bad query string, bodies that are not JSON, a field that is not allowed.
    expect((await as('get', `/tokens/${secrets.path}`)).status).toBeGreaterThanOrEqual(400);
    expect((await as('get', `/tokens/${secrets.ssn}`)).status).toBeGreaterThanOrEqual(400);
    expect((await test.http().get(`/reactor-formulas?name=${secrets.queryString}&page=${secrets.queryString}`).set('SVC-API-KEY', BOOTSTRAP_KEY)).status).toBe(400);
    expect((await as('post', '/tokens').set('Content-Type', 'application/json').send(`{"type":"token","data":"${secrets.badJson}`)).status).toBe(400);
    expect((await as('post', '/tokens').set('Content-Type', 'text/plain').send(secrets.wrongType)).status).toBe(415);
    expect((await as('post', '/tokens').send({ type: 'card_number', data: secrets.card.slice(0, -1) + '2', [secrets.badField]: secrets.data })).status).toBe(400);
    expect((await as('post', '/tokens').send({ type: 'token', data: secrets.data, mask: `{{ data | ${secrets.mask} }}` })).status).toBe(400);
    // Keys: a wrong one, and the real ones in the wrong place.
    expect((await test.http().get('/permissions').set('SVC-API-KEY', secrets.badKey)).status).toBe(401);
    expect((await test.http().get(`/permissions?key=${app.key}`)).status).toBe(401);
    expect((await as('delete', `/tokens/${card.body.id}`)).status).toBe(204);

    const all = test.logs.join('');
    expect(all).toContain('"msg":"request"');
    expect(lines().filter((line) => line.includes('"msg":"request"')).length).toBeGreaterThanOrEqual(17);
    for (const [what, value] of Object.entries({ ...secrets, key: app.key, bootstrapKey: BOOTSTRAP_KEY, ssnDigits: secrets.ssn.replace(/-/g, '') })) {
      expect([what, all.includes(value)]).toEqual([what, false]);
    }
    expect(all).not.toContain(marker);
  });
});
