// POST /tokenize against callers trying to learn about tokens they may not see ("What a write may reveal" in the API guide):
// deduplication follows the same rule as POST /tokens, so a token in containers where the caller has no token:create
// rule does not exist for it (a new token is created, and the answer looks as it does when nothing matches); the
// answer shows each token through the caller's own token:create rule; refusals create nothing and quote no data;
// token ids are scoped to the tenant.
import { randomUUID } from 'node:crypto';
import { asKey, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];
const SECRET_SSN = '287-65-4391';
const SECRET_NOTE = 'Zq9Confidential merger memo';

interface Token {
  id: string;
  data?: unknown;
  containers: string[];
  fingerprint: string;
}

describe('tokenize never tells more than the caller\'s token:create rule', () => {
  let test: TestApp;
  let owner: string; // reveal on / for everything
  let prober: string; // token:create with reveal on /mine/ only; no rule on /vault/
  let maskCreator: string; // token:create with mask on /
  const as = (key: string) => asKey(test, key);
  const tokenize = (key: string, body: unknown) => as(key).post('/tokenize', body);
  /** Tokens in the tenant with this SSN as the owner finds them (the owner's search reveals everything). */
  const ssnTokens = async (ssn: string) =>
    (await as(owner).post('/tokens/search', { query: `data:"${ssn}" AND type:social_security_number`, size: 100 })).body.data as Token[];

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const app = async (name: string, rules: unknown[], permissions = ALL) => (await createApplication(test, { name, type: 'private', permissions, rules })).key;
    owner = await app('owner', [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }]);
    prober = await app('prober', [{ priority: 1, container: '/mine/', transform: 'reveal', permissions: ['token:create'] }], ['token:create']);
    maskCreator = await app('mask-creator', [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:create'] }], ['token:create']);
    expect((await as(owner).post('/tokens', { type: 'social_security_number', data: SECRET_SSN, containers: ['/vault/'] })).status).toBe(201);
    expect((await as(owner).post('/tokens', { type: 'token', data: SECRET_NOTE, containers: ['/vault/'] })).status).toBe(201);
  });
  afterAll(() => test.close());

  describe('deduplication is no existence oracle for containers the caller has no rule on', () => {
    /** What a probe's answer looks like with everything that differs between two new tokens taken out. */
    const shape = (token: Token) => ({ ...token, id: 'id', fingerprint: 'fingerprint', data: 'data', created_at: 'at' });

    it('a guess that matches a hidden token creates a new token, answered like a guess that matches nothing', async () => {
      const before = await ssnTokens(SECRET_SSN);
      expect(before).toHaveLength(1);
      const probe = (ssn: string) => tokenize(prober, [{ type: 'social_security_number', data: ssn, containers: ['/mine/'], deduplicate_token: true }]);
      const hit = await probe(SECRET_SSN);
      const miss = await probe('287-65-4392');
      expect([hit.status, miss.status]).toEqual([201, 201]);
      const [hitToken] = hit.body as Token[];
      const [missToken] = miss.body as Token[];
      expect(hitToken.id).not.toBe(before[0].id);
      expect(hitToken.containers).toEqual(['/mine/']);
      expect(shape(hitToken)).toEqual(shape(missToken));
      expect(Object.keys(hit.headers).sort()).toEqual(Object.keys(miss.headers).sort());
      // A new token was created in the prober's container: the hidden one was never returned.
      const after = await ssnTokens(SECRET_SSN);
      expect(after.map((t) => t.id).sort()).toEqual([before[0].id, hitToken.id].sort());
    });

    it('neither does a leaf, nor a request next to a token of the caller\'s own', async () => {
      const response = await tokenize(prober, {
        mine: { type: 'token', data: SECRET_NOTE, containers: ['/mine/'], deduplicate_token: true },
        again: { type: 'token', data: SECRET_NOTE, containers: ['/mine/'], deduplicate_token: true },
      });
      expect(response.status).toBe(201);
      // The second finds the first (the caller's own, just created), never the owner's token in /vault/.
      expect(response.body.again.id).toBe(response.body.mine.id);
      expect(response.body.mine.containers).toEqual(['/mine/']);
    });

    it('asking for the hidden token\'s containers is a 403 naming the path, before any lookup or write', async () => {
      const before = await ssnTokens(SECRET_SSN);
      const response = await tokenize(prober, { guess: { type: 'social_security_number', data: SECRET_SSN, containers: ['/vault/'], deduplicate_token: true } });
      expect(response.status).toBe(403);
      expect(response.body.errors).toEqual({ 'guess.containers': ["No access rule of this application grants token:create on this token's containers."] });
      expect(JSON.stringify(response.body)).not.toContain('4391');
      expect(await ssnTokens(SECRET_SSN)).toEqual(before);
    });
  });

  it('a deduplicated token is shown through the caller\'s token:create rule for it: a mask-rule caller gets the mask', async () => {
    const existing = await ssnTokens(SECRET_SSN);
    const response = await tokenize(maskCreator, [{ type: 'social_security_number', data: SECRET_SSN, deduplicate_token: true }, { type: 'token', data: SECRET_NOTE, deduplicate_token: true }]);
    expect(response.status).toBe(201);
    const [ssn, note] = response.body as Token[];
    // The newest existing token with that SSN (its rule on / covers them all), not a new one.
    expect(ssn.id).toBe(existing[0].id);
    expect(await ssnTokens(SECRET_SSN)).toHaveLength(existing.length);
    expect(ssn.data).toBe('XXX-XX-4391');
    expect('data' in note).toBe(false);
    expect(response.text).not.toContain(SECRET_SSN);
    expect(response.text).not.toContain('Confidential');
  });

  it('a custom id used in another tenant is free here (no cross-tenant oracle)', async () => {
    const id = randomUUID();
    expect((await as(owner).post('/tokens', { id, type: 'token', data: 'theirs' })).status).toBe(201);
    const other = await createTenant(test, `other-${randomUUID()}`);
    const stranger = (
      await createApplication(
        test,
        { name: 'stranger', type: 'private', permissions: ['token:create'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create'] }] },
        other.management_key,
      )
    ).key;
    const response = await tokenize(stranger, [{ id, type: 'token', data: 'mine' }]);
    expect(response.status).toBe(201);
    expect(response.body[0]).toMatchObject({ id, data: 'mine' });
  });

  it('refusals quote no data: a 400 on bad data names paths only', async () => {
    const response = await tokenize(owner, { a: { type: 'card_number', data: '4929381726354652' }, b: { type: 'social_security_number', data: 'Zq9-not-an-ssn' } });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors).sort()).toEqual(['a.data', 'b.data']);
    expect(response.text).not.toMatch(/4929381726354652|Zq9-not-an-ssn/);
  });

  it('leaves no token data in the logs', () => {
    const logs = test.logs.join('\n');
    expect(logs).toContain('"status":201');
    for (const secret of [SECRET_SSN, '287654391', 'Confidential', '4929381726354652', 'Zq9-not-an-ssn']) expect(logs).not.toContain(secret);
  });
});
