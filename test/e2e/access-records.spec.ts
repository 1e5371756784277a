// Access records over HTTP ("Audit log" in the API guide): a reveal GET, a search that reveals, a detokenize and a reactor's
// uses and invocation each leave AccessRecorded events in the tenant's audit stream, read here through the app's own
// event store; mask reads leave none; no record holds token data, a query, args or configuration values.
import { randomUUID } from 'node:crypto';
import type { EventStore } from '@vault/application';
import type { AccessRecordedData } from '@vault/domain';
import { EVENT_STORE, loadConfig } from '@vault/nest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';
import { withoutIdsAndTimes } from '../support/random-parts';

const ALL = ['token:create', 'token:read', 'token:search', 'token:use'];
const SSN = '123-45-6789';
const CARD = '4242424242424242';
const SECRET = 'sk_live_Zq9TRXBKMW4hPLDH';
const ARG = 'plain-arg-Wq81';

const everyOn = (transform: string) => [{ priority: 1, container: '/', transform, permissions: ALL }];

describe('access records', () => {
  let test: TestApp;
  let revealer: { id: string; key: string };
  let masker: { id: string; key: string };
  let tenantId: string;
  const as = (key: string) => asKey(test, key);

  /** The tenant's audit stream as stored: each event's type, data and metadata. */
  const audit = async () =>
    (await test.app.get<symbol, EventStore>(EVENT_STORE).readStream(`audit-${tenantId}`)).map(({ type, data, metadata }) => ({ type, data: data as AccessRecordedData, metadata }));
  /** The records appended by `run`, in order. */
  const recordedBy = async (run: () => Promise<unknown>) => {
    const before = (await audit()).length;
    await run();
    return (await audit()).slice(before);
  };
  const create = async (body: object) => {
    const response = await as(revealer.key).post('/tokens', body);
    if (response.status !== 201) throw new Error(`create: ${response.status} ${JSON.stringify(response.body)}`);
    tenantId = response.body.tenant_id;
    return response.body.id as string;
  };

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    revealer = await createApplication(test, { name: 'revealer', type: 'private', permissions: ALL, rules: everyOn('reveal') });
    masker = await createApplication(test, { name: 'masker', type: 'private', permissions: ALL, rules: everyOn('mask') });
  });
  afterAll(() => test.close());

  it('a reveal GET records a reveal of the token by its application before answering; a mask GET records nothing', async () => {
    const id = await create({ type: 'social_security_number', data: SSN });
    const records = await recordedBy(async () => {
      const revealed = await as(revealer.key).get(`/tokens/${id}`).set('X-Request-Id', 'req-reveal-1');
      expect([revealed.status, revealed.body.data]).toEqual([200, SSN]);
      const masked = await as(masker.key).get(`/tokens/${id}`);
      expect([masked.status, masked.body.data]).toEqual([200, 'XXX-XX-6789']);
    });
    expect(records).toEqual([
      {
        type: 'AccessRecorded',
        data: { tenant_id: tenantId, entity_type: 'token', entity_id: id, operation: 'reveal', via: 'get', created_at: expect.any(String) },
        metadata: { tenant_id: tenantId, actor: { type: 'application', id: revealer.id }, timestamp: expect.any(String), correlation_id: 'req-reveal-1' },
      },
    ]);
  });

  it('a search records how many tokens it revealed, once, and never the query; a masked search records nothing', async () => {
    const batch = `batch-${randomUUID()}`;
    for (const data of ['111-22-3333', '222-33-4444', '333-44-5555']) await create({ type: 'social_security_number', data, metadata: { batch } });
    const query = `metadata.batch:"${batch}" AND NOT data:"222-33-4444"`;
    const records = await recordedBy(async () => {
      const revealed = await as(revealer.key).post('/tokens/search', { query, size: 10 });
      expect(revealed.body.data.map((t: { data: string }) => t.data).sort()).toEqual(['111-22-3333', '333-44-5555']);
      expect((await as(masker.key).post('/tokens/search', { query, size: 10 })).body.data).toHaveLength(2);
    });
    expect(records.map(({ data }) => data)).toEqual([
      { tenant_id: tenantId, entity_type: 'token', entity_id: null, operation: 'search', via: 'search', count: 2, created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(records)).not.toMatch(new RegExp(`${batch}|222-33-4444|111-22-3333|333-44-5555`));
    expect(Object.keys(records[0].data as object)).not.toContain('query');
  });

  it('detokenize records one reveal per distinct token shown in plaintext, none for a masked one', async () => {
    const [ssn, card] = [await create({ type: 'social_security_number', data: SSN }), await create({ type: 'card_number', data: CARD })];
    const records = await recordedBy(async () => {
      const answer = await as(revealer.key).post('/detokenize', { a: `{{ ${ssn} }}`, b: `{{ ${ssn} | reveal_last: 4 }}`, c: `{{ ${card} }}` });
      expect(answer.body).toEqual({ a: SSN, b: 'XXX-XX-6789', c: CARD });
      expect((await as(masker.key).post('/detokenize', { a: `{{ ${ssn} }}` })).status).toBe(200);
    });
    expect(records.map(({ data }) => [data.operation, data.via, data.entity_id])).toEqual([
      ['reveal', 'detokenize', ssn],
      ['reveal', 'detokenize', card],
    ]);
  });

  it("react records each token the args used and the reactor's invocation, before the code runs: a failing run keeps them", async () => {
    const card = await create({ type: 'card_number', data: CARD });
    const formula = await as(BOOTSTRAP_KEY).post('/reactor-formulas', {
      name: `Formula ${randomUUID()}`,
      type: 'private',
      code: 'module.exports = async function (req) { if (req.args.fail) throw new Error("upstream down"); return { raw: { ok: true } }; };',
      configuration: [{ name: 'api_key', type: 'string' }],
      request_parameters: [],
    });
    const reactor = await as(BOOTSTRAP_KEY).post('/reactors', { name: 'Reactor', formula: { id: formula.body.id }, configuration: { api_key: SECRET } });
    expect(reactor.status).toBe(201);
    const expected = [
      ['token', card, 'use', reactor.body.id],
      ['reactor', reactor.body.id, 'invoke', undefined],
    ];
    const ran = await recordedBy(async () => {
      expect((await as(masker.key).post(`/reactors/${reactor.body.id}/react`, { args: { card: `{{ ${card} }}`, note: ARG } })).status).toBe(200);
    });
    expect(ran.map(({ data }) => [data.entity_type, data.entity_id, data.operation, data.reactor_id])).toEqual(expected);
    expect(ran.map(({ data, metadata }) => [data.via, metadata.actor.id])).toEqual([
      ['react', masker.id],
      ['react', masker.id],
    ]);
    const failed = await recordedBy(async () => {
      expect((await as(masker.key).post(`/reactors/${reactor.body.id}/react`, { args: { card: `{{ ${card} }}`, fail: true } })).status).toBe(422);
    });
    expect(failed.map(({ data }) => [data.entity_type, data.entity_id, data.operation, data.reactor_id])).toEqual(expected);
  });

  it('a deduplicated create or tokenize that shows the stored token in plaintext records a reveal of it (via dedupe); a masked one records nothing', async () => {
    // A writer whose create and update rules reveal but whose read rule masks: deduplication answers with the stored
    // token, which may hold more than was sent (here the pin: the fingerprint is the card's alone).
    const writer = await createApplication(test, {
      name: 'writer',
      type: 'private',
      permissions: [...ALL, 'token:update'],
      rules: [
        { priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:update', 'token:use'] },
        { priority: 2, container: '/', transform: 'mask', permissions: ['token:read', 'token:search'] },
      ],
    });
    const stored = { card: '4111', pin: 'SECRETPIN-7777' };
    const id = await create({ type: 'token', data: stored, fingerprint_expression: '{{ data.card }}' });
    const guess = { type: 'token', data: { card: '4111', pin: 'guess' }, fingerprint_expression: '{{ data.card }}', deduplicate_token: true };
    const records = await recordedBy(async () => {
      const created = await as(writer.key).post('/tokens', guess);
      expect([created.status, created.body.id, created.body.data]).toEqual([200, id, stored]);
      const tokenized = await as(writer.key).post('/tokenize', { a: guess });
      expect([tokenized.status, tokenized.body.a.id, tokenized.body.a.data.pin]).toEqual([201, id, 'SECRETPIN-7777']);
      const masked = await as(masker.key).post('/tokens', guess);
      expect(masked.body.id).toBe(id);
      expect(masked.text).not.toContain('SECRETPIN');
    });
    expect(records.map(({ data, metadata }) => [data.entity_id, data.operation, data.via, metadata.actor.id])).toEqual([
      [id, 'reveal', 'dedupe', writer.id],
      [id, 'reveal', 'dedupe', writer.id],
    ]);
  });

  it('a PATCH whose answer reveals stored data the caller did not send records a reveal (via update); one that sends the data records nothing', async () => {
    const updater = await createApplication(test, {
      name: 'updater',
      type: 'private',
      permissions: [...ALL, 'token:update'],
      rules: [
        { priority: 1, container: '/', transform: 'reveal', permissions: ['token:update'] },
        { priority: 2, container: '/', transform: 'mask', permissions: ['token:read', 'token:create'] },
      ],
    });
    const id = await create({ type: 'card_number', data: CARD });
    const records = await recordedBy(async () => {
      const moved = await as(updater.key).patch(`/tokens/${id}`, { metadata: { k: 'v' } });
      expect([moved.status, moved.body.data]).toEqual([200, CARD]);
      const expiring = await as(updater.key).patch(`/tokens/${id}`, { expires_at: '2999-01-01T00:00:00Z' });
      expect(expiring.body.data).toBe(CARD);
      const replaced = await as(updater.key).patch(`/tokens/${id}`, { data: '4000056655665556' });
      expect(replaced.body.data).toBe('4000056655665556');
    });
    expect(records.map(({ data, metadata }) => [data.entity_id, data.operation, data.via, metadata.actor.id])).toEqual([
      [id, 'reveal', 'update', updater.id],
      [id, 'reveal', 'update', updater.id],
    ]);
  });

  it('no record in the audit stream holds token data, masks, query values, args or configuration values', async () => {
    const stored = withoutIdsAndTimes(JSON.stringify(await audit()));
    expect(stored).toContain('AccessRecorded');
    for (const secret of [SSN, '6789', CARD, '4242', '111-22-3333', '333-44-5555', SECRET, ARG, 'upstream down', 'XXX-XX']) {
      expect(stored).not.toContain(secret);
    }
  });
});

describe('VAULT_AUDIT_ACCESS_RECORDS=false (for benchmarking only)', () => {
  it('is on unless set to false, and anything but true or false stops start-up', () => {
    expect([loadConfig({}).auditAccessRecords, loadConfig({ VAULT_AUDIT_ACCESS_RECORDS: 'FALSE' }).auditAccessRecords]).toEqual([true, false]);
    expect(() => loadConfig({ VAULT_AUDIT_ACCESS_RECORDS: 'off' })).toThrow('VAULT_AUDIT_ACCESS_RECORDS must be true or false');
  });

  it('answers a reveal GET without writing any access record', async () => {
    const test = await startTestApp({ VAULT_AUDIT_ACCESS_RECORDS: 'false' });
    try {
      const app = await createApplication(test, { name: 'revealer', type: 'private', permissions: ALL, rules: everyOn('reveal') });
      const created = await asKey(test, app.key).post('/tokens', { type: 'social_security_number', data: SSN });
      expect((await asKey(test, app.key).get(`/tokens/${created.body.id}`)).body.data).toBe(SSN);
      expect(await test.app.get<symbol, EventStore>(EVENT_STORE).readStream(`audit-${created.body.tenant_id}`)).toEqual([]);
    } finally {
      await test.close();
    }
  });
});
