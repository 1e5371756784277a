// The verified official formulas, run for real: imported as the operator does, a reactor created from each, invoked
// over HTTP with real args (Forward Card posting to an HTTP server this test starts on 127.0.0.1).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import { VaultBus } from '@vault/nest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const DIR = join(__dirname, '..', '..', 'formulas', 'official');
const FILES = readdirSync(DIR).filter((name) => name.endsWith('.json')).sort();
const read = (file: string) => JSON.parse(readFileSync(join(DIR, file), 'utf8'));
const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
const CARD = '4242424242424242';
const UPSTREAM_KEY = 'sk_test_Zq9TRXBKMW4hPLDH';

describe('the official formulas, run as reactors', () => {
  let test: TestApp;
  let upstream: LocalHttpServer;
  let caller: string;
  const as = (key: string) => asKey(test, key);
  const createReactor = async (file: string, configuration: Record<string, unknown>) => {
    const response = await as(BOOTSTRAP_KEY).post('/reactors', { name: read(file).name, formula: { id: read(file).id }, configuration });
    if (response.status !== 201) throw new Error(`create reactor: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.id as string;
  };
  const react = (id: string, args: unknown) => as(caller).post(`/reactors/${id}/react`, { args });

  beforeAll(async () => {
    upstream = await startLocalHttpServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      const sent = JSON.parse(request.body);
      // /echo: an endpoint whose validation error quotes the request, the card written three ways, and the key.
      if (request.path === '/echo') {
        const spaced = sent.card_number.replace(/(\d{4})(?=\d)/g, '$1 ');
        const dashed = sent.card_number.replace(/(\d{4})(?=\d)/g, '$1-');
        response.statusCode = 422;
        response.end(JSON.stringify({ error: `card ${sent.card_number} declined`, card: spaced, also: dashed, auth: request.headers.authorization }));
        return;
      }
      response.end(JSON.stringify({ id: 'ch_1', approved: true, received_digits: sent.card_number.length }));
    });
    test = await startTestApp({ VAULT_REACTOR_ALLOWED_HOSTS: upstream.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const bus = test.app.get(VaultBus);
    for (const file of FILES) await bus.execute(new ImportOfficialFormulaCommand(read(file), { type: 'operator', id: 'cli' }, 'import'));
    // The caller sees masks only, yet may use the data in reactors.
    caller = (await createApplication(test, { name: 'shop', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ALL }] })).key;
  });
  afterAll(async () => {
    await test?.close();
    await upstream?.close();
  });

  it('ships Forward Card among the verified ones, and only verified formulas make reactors', async () => {
    const verified = FILES.filter((file) => read(file).status === 'verified').map((file) => read(file).name);
    expect(verified).toEqual(expect.arrayContaining(['Forward Card', 'Mask Email', 'Tokenize Payload']));
    for (const file of FILES.filter((f) => read(f).status !== 'verified')) {
      const response = await as(BOOTSTRAP_KEY).post('/reactors', { name: 'x', formula: { id: read(file).id }, configuration: {} });
      expect(response.status).toBe(400);
    }
  });

  it('Tokenize Payload turns each field into a token, in the configured container', async () => {
    const id = await createReactor('tokenize-payload.json', { container: '/pii/customers/', deduplicate: false });
    const response = await react(id, { payload: { ssn: '123-45-6789', city: 'Lyon', empty: '' } });
    expect(response.status).toBe(200);
    expect(response.body.raw).toEqual({ tokenized_fields: ['ssn', 'city'], skipped_fields: ['empty'] });
    expect(response.body.tokens).toEqual({
      ssn: expect.objectContaining({ id: expect.any(String), type: 'token', containers: ['/pii/customers/'] }),
      city: expect.objectContaining({ id: expect.any(String), type: 'token', containers: ['/pii/customers/'] }),
    });
    // Real tokens: their data is there for a reader whose rule reveals it.
    const detokenized = await as(caller).post('/reactors/' + id + '/react', { args: { payload: { copy: `{{ ${response.body.tokens.city.id} }}` } } });
    expect(detokenized.body.raw.tokenized_fields).toEqual(['copy']);
  });

  it('Mask Email returns the reshaped address in raw, from an email token the caller only sees masked', async () => {
    const id = await createReactor('mask-email.json', { mask_character: '*', reveal_domain: true });
    expect((await react(id, { email: 'jane.doe@example.com' })).body).toEqual({
      tokens: null,
      raw: { masked_email: 'j******e@example.com', domain: 'example.com' },
    });
    const token = await as(caller).post('/tokens', { type: 'token', data: 'ada.lovelace@math.org' });
    const masked = await react(id, { email: `{{ ${token.body.id} }}` });
    expect(masked.status).toBe(200);
    expect(masked.body.raw).toEqual({ masked_email: 'a**********e@math.org', domain: 'math.org' });
  });

  it('Forward Card posts the detokenized card to the allowed endpoint; the caller gets the answer and the last four digits only', async () => {
    const id = await createReactor('forward-card.json', { endpoint: upstream.url('/charges'), api_key: UPSTREAM_KEY });
    const card = await as(caller).post('/tokens', { type: 'card_number', data: CARD });
    expect(card.status).toBe(201);
    expect(card.text).not.toContain(CARD);
    const response = await react(id, { card_number: `{{ ${card.body.id} }}`, amount: 1250, currency: 'EUR' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      tokens: null,
      raw: { status: 200, ok: true, card_last4: '4242', response: { id: 'ch_1', approved: true, received_digits: 16 } },
    });
    expect(response.text).not.toContain(CARD);
    const received = upstream.received.at(-1)!;
    expect(received).toMatchObject({ method: 'POST', path: '/charges' });
    expect(received.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(JSON.parse(received.body)).toEqual({ card_number: CARD, amount: 1250, currency: 'EUR' });
    expect(test.logs.join('\n')).not.toContain(CARD);
  });

  it('Forward Card never returns the card number or the API key an endpoint echoes back, however the card is written', async () => {
    const id = await createReactor('forward-card.json', { endpoint: upstream.url('/echo'), api_key: UPSTREAM_KEY });
    const card = await as(caller).post('/tokens', { type: 'card_number', data: CARD });
    const response = await react(id, { card_number: `{{ ${card.body.id} }}` });
    expect(response.status).toBe(200);
    expect(response.body.raw).toEqual({
      status: 422,
      ok: false,
      card_last4: '4242',
      response: { error: 'card [redacted] declined', card: '[redacted]', also: '[redacted]', auth: 'Bearer [redacted]' },
    });
    expect(response.text).not.toMatch(/4242[\s-]*4242/);
    expect(response.text).not.toContain(UPSTREAM_KEY);
  });

  it('Forward Card to an endpoint that is not allowed: 422 naming no host (the endpoint is configuration), nothing sent', async () => {
    const id = await createReactor('forward-card.json', { endpoint: 'http://127.0.0.2:9/charges', api_key: UPSTREAM_KEY });
    const before = upstream.received.length;
    const response = await react(id, { card_number: CARD });
    expect(response.status).toBe(422);
    expect(response.body.errors.reactor[0]).toMatch(/fetch refused: the host is not in VAULT_REACTOR_ALLOWED_HOSTS\./);
    expect(response.body.errors.reactor[0]).not.toMatch(/127\.0\.0\.2/);
    expect(upstream.received.length).toBe(before);
  });

  it('Forward Card refuses args that are not a card number', async () => {
    const id = await createReactor('forward-card.json', { endpoint: upstream.url('/charges'), api_key: '' });
    const response = await react(id, { card_number: 'not a card' });
    expect(response.status).toBe(422);
    expect(response.body.errors.reactor[0]).toMatch(/args\.card_number must be a card number/);
    expect((await react(id, {})).status).toBe(400);
  });
});
