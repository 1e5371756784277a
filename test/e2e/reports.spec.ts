// GET /tenants/self/reports/usage ("Reports" in the API guide): live tokens by type with the newest creation time, and
// the distinct tokens created, updated, revealed, detokenized or used this calendar month, for the caller's tenant
// only, with report:read, and nothing but counts in the answer.
import { randomUUID } from 'node:crypto';
import { asKey, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete', 'token:use'];
const REVEAL = { permissions: TOKEN_PERMISSIONS, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: TOKEN_PERMISSIONS }] };
const SSN = '123-45-6789';
const CARD = '4242424242424242';
const USAGE = '/tenants/self/reports/usage';

type Report = { token_report: { metrics_by_type: Record<string, { count: number; last_created_at: string }>; monthly_active_tokens: number } };

describe('GET /tenants/self/reports/usage', () => {
  let test: TestApp;
  const as = (key: string) => asKey(test, key);

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(() => test.close());

  /** A fresh tenant: its management key (which holds report:read) and an application that reveals every token. */
  const aTenant = async () => {
    const tenant = await createTenant(test, `usage ${randomUUID()}`);
    const app = await createApplication(test, { name: 'backend', type: 'private', ...REVEAL }, tenant.management_key);
    return { admin: tenant.management_key, app: app.key };
  };
  const report = async (key: string): Promise<Report> => {
    const response = await as(key).get(USAGE);
    expect(response.status).toBe(200);
    return response.body;
  };
  /** Access records answer before they are projected: the report catches up a moment later. */
  const eventually = async (key: string, expected: (r: Report) => boolean): Promise<Report> => {
    const deadline = Date.now() + 5000;
    for (;;) {
      const current = await report(key);
      if (expected(current) || Date.now() > deadline) return current;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const create = async (key: string, body: object) => {
    const response = await as(key).post('/tokens', body);
    expect(response.status).toBe(201);
    return response.body as { id: string; created_at: string };
  };

  it('answers a tenant with nothing with no types and no active tokens', async () => {
    const { admin } = await aTenant();
    expect(await report(admin)).toEqual({ token_report: { metrics_by_type: {}, monthly_active_tokens: 0 } });
  });

  it('counts live tokens by type after creates and deletes, with the newest creation time of each type', async () => {
    const { admin, app } = await aTenant();
    const firstCard = await create(app, { type: 'card_number', data: CARD });
    const ssn = await create(app, { type: 'social_security_number', data: SSN });
    const lastCard = await create(app, { type: 'card_number', data: '5555555555554444' });
    const doomed = await create(app, { type: 'token', data: { note: 'gone soon' } });
    expect((await report(admin)).token_report.metrics_by_type).toEqual({
      card_number: { count: 2, last_created_at: lastCard.created_at },
      social_security_number: { count: 1, last_created_at: ssn.created_at },
      token: { count: 1, last_created_at: doomed.created_at },
    });
    expect((await as(app).delete(`/tokens/${doomed.id}`)).status).toBe(204);
    expect((await as(app).delete(`/tokens/${lastCard.id}`)).status).toBe(204);
    // The type with none left is left out; the newest live card is now the first one.
    expect((await report(admin)).token_report.metrics_by_type).toEqual({
      card_number: { count: 1, last_created_at: firstCard.created_at },
      social_security_number: { count: 1, last_created_at: ssn.created_at },
    });
  });

  /** Runs `act` with the clock (Date alone: timers run as ever) on the 15th of last month, 12:00 UTC. */
  const lastMonth = async <T>(act: () => Promise<T>): Promise<T> => {
    const now = new Date();
    jest.useFakeTimers({
      now: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15, 12),
      advanceTimers: true,
      doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame', 'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    });
    try {
      return await act();
    } finally {
      jest.useRealTimers();
    }
  };

  it('counts each token active this month once: updated, revealed by GET, detokenized, used by a reactor, created', async () => {
    const { admin, app } = await aTenant();
    const formula = await as(admin).post('/reactor-formulas', {
      name: `Length ${randomUUID()}`,
      type: 'private',
      code: 'module.exports = async function (req) { return { raw: { length: String(req.args.value).length } }; };',
      configuration: [],
      request_parameters: [],
    });
    expect(formula.status).toBe(201);
    const reactor = await as(admin).post('/reactors', { name: 'Length', formula: { id: formula.body.id }, configuration: {} });
    expect(reactor.status).toBe(201);
    // Tokens created last month: live now, but not active this month until something touches them.
    const [untouched, updated, revealed, detokenized, used] = await lastMonth(async () => [
      await create(app, { type: 'token', data: 'left alone' }),
      await create(app, { type: 'token', data: 'to update' }),
      await create(app, { type: 'social_security_number', data: SSN }),
      await create(app, { type: 'card_number', data: CARD }),
      await create(app, { type: 'token', data: 'to use' }),
    ]);
    expect(untouched.created_at.slice(0, 7)).not.toBe(new Date().toISOString().slice(0, 7));
    expect(await report(admin)).toEqual({
      token_report: {
        metrics_by_type: {
          card_number: { count: 1, last_created_at: detokenized.created_at },
          social_security_number: { count: 1, last_created_at: revealed.created_at },
          token: { count: 3, last_created_at: used.created_at },
        },
        monthly_active_tokens: 0,
      },
    });
    // Each kind of activity, twice over: four distinct tokens.
    for (let round = 0; round < 2; round++) {
      expect((await as(app).patch(`/tokens/${updated.id}`, { metadata: { round: String(round) } })).status).toBe(200);
      expect((await as(app).get(`/tokens/${revealed.id}`)).body.data).toBe(SSN);
      expect((await as(app).post('/detokenize', { card: `{{ ${detokenized.id} }}` })).body).toEqual({ card: CARD });
      expect((await as(app).post(`/reactors/${reactor.body.id}/react`, { args: { value: `{{ ${used.id} }}` } })).status).toBe(200);
    }
    expect((await eventually(admin, (r) => r.token_report.monthly_active_tokens >= 4)).token_report.monthly_active_tokens).toBe(4);
    // Another reveal of a token already counted moves nothing; a token created now is active too (a write answers once
    // the read models have applied it, and everything before it).
    expect((await as(app).get(`/tokens/${revealed.id}`)).status).toBe(200);
    await create(app, { type: 'token', data: 'new this month' });
    expect((await report(admin)).token_report.monthly_active_tokens).toBe(5);
  });

  it("never counts another tenant's tokens", async () => {
    const [mine, theirs] = [await aTenant(), await aTenant()];
    const card = await create(mine.app, { type: 'card_number', data: CARD });
    for (let i = 0; i < 3; i++) await create(theirs.app, { type: 'social_security_number', data: SSN });
    expect(await report(mine.admin)).toEqual({
      token_report: { metrics_by_type: { card_number: { count: 1, last_created_at: card.created_at } }, monthly_active_tokens: 1 },
    });
    expect((await report(theirs.admin)).token_report.metrics_by_type).toEqual({ social_security_number: { count: 3, last_created_at: expect.any(String) } });
  });

  it('refuses a key without report:read: 403', async () => {
    const { app } = await aTenant();
    const response = await as(app).get(USAGE);
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe('The application lacks the report:read permission.');
  });

  it('answers counts only: no token id, data, mask or metadata', async () => {
    const { admin, app } = await aTenant();
    const ids = [
      (await create(app, { type: 'social_security_number', data: SSN, metadata: { customer: 'metadata-marker' } })).id,
      (await create(app, { type: 'card_number', data: CARD, containers: ['/pci/'] })).id,
    ];
    const body = await eventually(admin, (r) => r.token_report.monthly_active_tokens === 2);
    const text = JSON.stringify(body);
    expect(text).not.toMatch(new RegExp([...ids, SSN, '6789', CARD, '4242', 'metadata-marker', 'pci'].join('|')));
    expect(Object.keys(body)).toEqual(['token_report']);
    expect(Object.keys(body.token_report).sort()).toEqual(['metrics_by_type', 'monthly_active_tokens']);
    for (const metrics of Object.values(body.token_report.metrics_by_type)) expect(Object.keys(metrics).sort()).toEqual(['count', 'last_created_at']);
  });
});
