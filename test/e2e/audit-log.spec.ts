// GET /logs over HTTP: writes of tokens and applications appear with the acting application, newest first; every filter
// and its 400; log:read; tenants apart; no token data, key or name anywhere; retention drops old access records only.
import { randomUUID } from 'node:crypto';
import { BOOTSTRAP_APPLICATION_ID, BOOTSTRAP_TENANT_ID, type EventStore, type ProjectionWaiter } from '@vault/application';
import { auditStream, type AccessRecordedData } from '@vault/domain';
import { EVENT_STORE, loadConfig, PROJECTION_WAITER } from '@vault/nest';
import { AuditRetentionSweeper } from '../../apps/api/src/audit/audit-retention-sweeper';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, type TestApp } from '../support/test-app';
import { withoutIdsAndTimes } from '../support/random-parts';

interface Entry {
  tenant_id: string;
  actor_id: string;
  actor_type: string;
  entity_type: string;
  entity_id: string | null;
  operation: string;
  message: string;
  created_at: string;
}

const TOKEN_PERMISSIONS = ['token:create', 'token:read', 'token:update', 'token:delete'];
const CARD = '4242424242424242';
const NEW_CARD = '4000056655665556';
const METADATA_VALUE = 'customer-7781-private-note';

describe('GET /logs', () => {
  let test: TestApp;
  let writer: { id: string; key: string };
  let tokenId: string;
  let other: { tenant_id: string; management_key: string };
  /** Every response body of GET /logs, for the "no token data anywhere" check. */
  const bodies: string[] = [];
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const logs = async (query = '', key = BOOTSTRAP_KEY) => {
    const response = await asKey(test, key).get(`/logs${query}`);
    bodies.push(JSON.stringify(response.body));
    return response;
  };
  const entries = async (query = '', key = BOOTSTRAP_KEY): Promise<Entry[]> => {
    const response = await logs(query, key);
    expect(response.status).toBe(200);
    return response.body.data;
  };

  beforeAll(async () => {
    test = await startTestApp();
    other = await createTenant(test, 'other');
    writer = await createApplication(test, { name: 'Checkout writer', type: 'private', permissions: TOKEN_PERMISSIONS });
    const created = await asKey(test, writer.key).post('/tokens', { type: 'card_number', data: CARD, metadata: { note: METADATA_VALUE } });
    expect(created.status).toBe(201);
    tokenId = created.body.id;
    expect((await asKey(test, writer.key).patch(`/tokens/${tokenId}`, { data: NEW_CARD })).status).toBe(200);
    expect((await asKey(test, writer.key).delete(`/tokens/${tokenId}`)).status).toBe(204);
    const regenerated = await admin().post(`/applications/${writer.id}/regenerate`);
    expect(regenerated.status).toBe(200);
    writer.key = regenerated.body.key;
  });
  afterAll(() => test.close());

  it('shows every write with the acting application, newest first', async () => {
    const response = await logs();
    expect(response.status).toBe(200);
    const writes = (response.body.data as Entry[]).map((e) => [e.entity_type, e.entity_id, e.operation, e.actor_type, e.actor_id, e.message]);
    expect(writes).toEqual([
      ['application', writer.id, 'regenerate', 'application', BOOTSTRAP_APPLICATION_ID, 'Application key regenerated'],
      ['token', tokenId, 'delete', 'application', writer.id, 'Token deleted'],
      ['token', tokenId, 'update', 'application', writer.id, 'Token updated'],
      ['token', tokenId, 'create', 'application', writer.id, 'Token created'],
      ['application', writer.id, 'create', 'application', BOOTSTRAP_APPLICATION_ID, 'Application created'],
      // The development bootstrap: the tenant and its management application, by the vault itself (an operator).
      ['tenant', BOOTSTRAP_TENANT_ID, 'create', 'operator', 'bootstrap', 'Tenant created'],
      ['application', BOOTSTRAP_APPLICATION_ID, 'create', 'operator', 'bootstrap', 'Application created'],
    ]);
    expect(response.body.pagination).toEqual({ total_items: 7, page_number: 1, page_size: 20, total_pages: 1 });
    const times = (response.body.data as Entry[]).map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(Object.keys(response.body.data[0]).sort()).toEqual(
      ['actor_id', 'actor_type', 'created_at', 'entity_id', 'entity_type', 'message', 'operation', 'tenant_id'].sort(),
    );
    expect((response.body.data as Entry[]).every((e) => e.tenant_id === BOOTSTRAP_TENANT_ID)).toBe(true);
  });

  it("filters by entity id (any case) and by entity type", async () => {
    expect((await entries(`?entity_id=${tokenId.toUpperCase()}`)).map((e) => e.operation)).toEqual(['delete', 'update', 'create']);
    expect((await entries('?entity_type=application')).map((e) => [e.entity_id, e.operation])).toEqual([
      [writer.id, 'regenerate'],
      [writer.id, 'create'],
      [BOOTSTRAP_APPLICATION_ID, 'create'],
    ]);
    expect(await entries('?entity_type=reactor')).toEqual([]);
    expect(await entries(`?entity_type=application&entity_id=${tokenId}`)).toEqual([]);
    expect(await entries(`?entity_id=${randomUUID()}`)).toEqual([]);
  });

  it('filters by time, both ends inclusive, by date or date-time with any time zone', async () => {
    const all = await entries();
    const update = all.find((e) => e.operation === 'update')!;
    const at = update.created_at;
    const within = (from: string, to: string) => all.filter((e) => e.created_at >= from && e.created_at <= to);
    expect(await entries(`?start_date=${at}&end_date=${at}`)).toEqual(within(at, at));
    expect(await entries(`?start_date=${at}&end_date=${at}`)).toContainEqual(update);
    expect(await entries(`?start_date=${at}`)).toEqual(within(at, '9999'));
    expect(await entries(`?end_date=${at}`)).toEqual(within('0000', at));
    const day = at.slice(0, 10);
    expect(await entries(`?start_date=${day}&end_date=${day}`)).toEqual(all);
    // The same instant written in another time zone (+01:00), percent-encoded as a query string needs.
    const shifted = new Date(Date.parse(at) + 3_600_000).toISOString().replace('Z', '+01:00');
    expect(await entries(`?start_date=${encodeURIComponent(shifted)}&end_date=${encodeURIComponent(shifted)}`)).toEqual(within(at, at));
    expect(await entries('?end_date=2000-01-01')).toEqual([]);
  });

  it('pages newest first with the true totals', async () => {
    const all = await entries();
    const page2 = await logs('?page=2&size=3');
    expect(page2.body.pagination).toEqual({ total_items: 7, page_number: 2, page_size: 3, total_pages: 3 });
    expect(page2.body.data).toEqual(all.slice(3, 6));
    const past = await logs('?page=9&size=3');
    expect(past.status).toBe(200);
    expect(past.body).toEqual({ pagination: { total_items: 7, page_number: 9, page_size: 3, total_pages: 3 }, data: [] });
    expect((await logs(`?entity_id=${tokenId}&size=2`)).body.pagination).toEqual({ total_items: 3, page_number: 1, page_size: 2, total_pages: 2 });
  });

  it.each([
    ['?entity_type=card', 'entity_type'],
    ['?entity_type=TOKEN', 'entity_type'],
    ['?entity_id=not-a-uuid', 'entity_id'],
    ['?start_date=yesterday', 'start_date'],
    ['?start_date=2024-02-30', 'start_date'],
    ['?end_date=2024-05-01T10:00:00', 'end_date'],
    ['?start_date=2024-05-02&end_date=2024-05-01', 'start_date'],
    ['?start_date=2024-05-01T10:00:00.001Z&end_date=2024-05-01T10:00:00Z', 'start_date'],
    ['?end_date=' + 'x'.repeat(65), 'end_date'],
    ['?entity_type=token&entity_type=reactor', 'entity_type'],
    ['?page=0', 'page'],
    ['?page=abc', 'page'],
    ['?size=101', 'size'],
    ['?size=0', 'size'],
  ])('answers %s with a 400 naming %s', async (query, field) => {
    const response = await logs(query);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(Object.keys(response.body.errors)).toEqual([field]);
  });

  it('needs log:read (403) and a key (401)', async () => {
    const refused = await logs('', writer.key);
    expect(refused.status).toBe(403);
    expect((await test.http().get('/logs')).status).toBe(401);
    const auditor = await createApplication(test, { name: 'Auditor', type: 'management', permissions: ['log:read'] });
    expect((await entries(`?entity_id=${tokenId}`, auditor.key)).map((e) => e.operation)).toEqual(['delete', 'update', 'create']);
  });

  it("keeps each tenant to its own log", async () => {
    const theirs = await entries('', other.management_key);
    expect(theirs.map((e) => [e.entity_type, e.operation, e.actor_type, e.actor_id])).toEqual([
      ['tenant', 'create', 'operator', 'test'],
      ['application', 'create', 'operator', 'test'],
    ]);
    expect(theirs.every((e) => e.tenant_id === other.tenant_id)).toBe(true);
    expect(await entries(`?entity_id=${tokenId}`, other.management_key)).toEqual([]);
    expect((await entries()).some((e) => e.tenant_id === other.tenant_id || e.entity_id === other.tenant_id)).toBe(false);
  });

  // Last, so that it reads every body the other cases received.
  it('never shows token data, metadata, names or keys', async () => {
    bodies.push(JSON.stringify((await logs('?size=100')).body));
    const all = withoutIdsAndTimes(bodies.join('\n'));
    for (const secret of [CARD, NEW_CARD, '4242', METADATA_VALUE, 'Checkout writer', writer.key, BOOTSTRAP_KEY, other.management_key]) {
      expect(all).not.toContain(secret);
    }
    expect(all).not.toMatch(/key_hash|"data"\s*:\s*"|mask|search_index|fingerprint/);
  });
});

describe('GET /logs with access records', () => {
  let test: TestApp;
  beforeAll(async () => (test = await startTestApp()));
  afterAll(() => test.close());

  /** Access records are durable before their answer, and projected a moment later: wait for `count` entries. */
  const entriesOf = async (key: string, query: string, count: number): Promise<Entry[]> => {
    for (let waited = 0; ; waited += 20) {
      const response = await asKey(test, key).get(`/logs${query}`);
      expect(response.status).toBe(200);
      if (response.body.data.length >= count || waited > 3000) return response.body.data;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("shows a token's create, its reveal read and its update with the acting applications, and nothing for a mask read or a search that revealed none", async () => {
    const tenant = await createTenant(test, 'acceptance');
    const permissions = ['token:create', 'token:read', 'token:update', 'token:search'];
    const rule = (transform: string) => [{ priority: 1, container: '/', transform, permissions }];
    const revealer = await createApplication(test, { name: 'revealer', type: 'private', permissions, rules: rule('reveal') }, tenant.management_key);
    const masker = await createApplication(test, { name: 'masker', type: 'private', permissions, rules: rule('mask') }, tenant.management_key);
    const created = await asKey(test, masker.key).post('/tokens', { type: 'social_security_number', data: '123-45-6789' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await asKey(test, revealer.key).get(`/tokens/${id}`)).body.data).toBe('123-45-6789');
    expect((await asKey(test, masker.key).get(`/tokens/${id}`)).body.data).toBe('XXX-XX-6789');
    expect((await asKey(test, masker.key).post('/tokens/search', { query: `id:${id}` })).body.data).toHaveLength(1);
    expect((await asKey(test, masker.key).patch(`/tokens/${id}`, { metadata: { step: 'patched' } })).status).toBe(200);
    const found = await asKey(test, revealer.key).post('/tokens/search', { query: `id:${id}` });
    expect(found.body.data.map((t: { data: string }) => t.data)).toEqual(['123-45-6789']);

    const entries = await entriesOf(tenant.management_key, `?entity_id=${id}`, 3);
    expect(entries.map((e) => [e.operation, e.actor_type, e.actor_id, e.message])).toEqual([
      ['update', 'application', masker.id, 'Token updated'],
      ['reveal', 'application', revealer.id, 'Token revealed in plaintext (GET /tokens/{id})'],
      ['create', 'application', masker.id, 'Token created'],
    ]);
    // The search has no one entity: it is listed by type, with its count and never its query.
    const tokens = await entriesOf(tenant.management_key, '?entity_type=token', 4);
    expect(tokens[0]).toMatchObject({ operation: 'search', entity_id: null, actor_id: revealer.id, message: 'Search returned 1 token in plaintext' });
    expect(tokens).toHaveLength(4);
    for (const secret of ['123-45-6789', 'XXX-XX-6789', 'patched', `id:${id}`]) expect(JSON.stringify(tokens)).not.toContain(secret);

    // Without VAULT_AUDIT_RETENTION_DAYS, access records are kept forever: a sweep a thousand years on drops nothing.
    expect(await test.app.get(AuditRetentionSweeper).sweep(new Date('3026-01-01T00:00:00Z'))).toBe(0);
    expect(await entriesOf(tenant.management_key, '?entity_type=token', 4)).toEqual(tokens);
  });
});

describe('audit retention (VAULT_AUDIT_RETENTION_DAYS)', () => {
  const DAY = 86_400_000;

  it('refuses a start-up with a retention that is not a whole number of days ≥ 1, naming the variable', () => {
    for (const raw of ['0', '-3', '1.5', '30d', '1e3', 'forever']) {
      expect(() => loadConfig({ VAULT_AUDIT_RETENTION_DAYS: raw })).toThrow(/VAULT_AUDIT_RETENTION_DAYS/);
    }
    expect(loadConfig({}).auditRetentionDays).toBeNull();
    expect(loadConfig({ VAULT_AUDIT_RETENTION_DAYS: '' }).auditRetentionDays).toBeNull();
    expect(loadConfig({ VAULT_AUDIT_RETENTION_DAYS: '30' }).auditRetentionDays).toBe(30);
  });

  it('drops access records older than the retention from GET /logs, keeps newer ones and every write, and leaves the events in the log', async () => {
    const test = await startTestApp({ VAULT_AUDIT_RETENTION_DAYS: '30' });
    try {
      const tenant = await createTenant(test, 'retained');
      const reader = randomUUID();
      const token = randomUUID();
      const record = (daysAgo: number, data: Partial<AccessRecordedData> = {}) => {
        const created_at = new Date(Date.now() - daysAgo * DAY).toISOString();
        return {
          type: 'AccessRecorded',
          data: { tenant_id: tenant.tenant_id, entity_type: 'token', entity_id: token, operation: 'reveal', via: 'get', created_at, ...data },
          metadata: { tenant_id: tenant.tenant_id, actor: { type: 'application' as const, id: reader }, timestamp: created_at, correlation_id: 'test' },
        };
      };
      const events = test.app.get<EventStore>(EVENT_STORE);
      const { position } = await events.append(
        auditStream(tenant.tenant_id),
        [
          record(40),
          record(31, { entity_id: null, operation: 'search', via: 'search', count: 2 }),
          record(45, { entity_type: 'reactor', entity_id: randomUUID(), operation: 'invoke', via: 'react' }),
          record(29, { via: 'detokenize' }),
          record(1),
        ],
        'any',
      );
      expect(await test.app.get<ProjectionWaiter>(PROJECTION_WAITER).waitFor(position, 5000)).toBe(true);
      const list = async () => {
        const response = await asKey(test, tenant.management_key).get('/logs');
        expect(response.status).toBe(200);
        return (response.body.data as Entry[]).map((e) => [e.entity_type, e.operation]);
      };
      expect(await list()).toHaveLength(7);

      expect(await test.app.get(AuditRetentionSweeper).sweep()).toBe(3);
      // The tenant was created just now; the records kept are 1 and 29 days old.
      expect(await list()).toEqual([
        ['tenant', 'create'],
        ['application', 'create'],
        ['token', 'reveal'],
        ['token', 'reveal'],
      ]);
      const stream = await events.readStream(auditStream(tenant.tenant_id));
      expect(stream).toHaveLength(5);
    } finally {
      await test.close();
    }
  });
});
