// POST /reactors/{id}/react and the vault's one promise ("What a write may reveal" in the API guide): reactor code sees the data
// whatever the caller's rule, so neither the args' shape nor the tokens made from the result may show the caller more of
// a token than its own token:read rule does. Run with the official formulas, imported as the operator does.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import { VaultBus } from '@vault/nest';
import { withoutIdsAndTimes } from '../support/random-parts';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const DIR = join(__dirname, '..', '..', 'formulas', 'official');
const formula = (file: string) => JSON.parse(readFileSync(join(DIR, file), 'utf8'));
const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
const CARD = '4111111111111111';
const SSN = '078-05-1120';
const GUESS = 'guessed-value-7f3a2c9d';

describe('react shows the caller no more of a token than its own token:read rule', () => {
  let test: TestApp;
  let upstream: LocalHttpServer;
  let revealer: string; // reveal on / for every token permission: creates the tokens
  let masker: string; // mask on / for every token permission
  let pciMasker: string; // mask on /pci/, reveal on / (every token permission)
  let useOnly: string; // token:use on /, masked, and nothing else: no token:create, read or search
  let revealApp: { id: string; key: string }; // a reactor's application: reveal and create on /
  let card: string;
  let ssn: string;
  const as = (key: string) => asKey(test, key);
  const react = (id: string, args: unknown, key: string) => as(key).post(`/reactors/${id}/react`, { args });
  const createReactor = async (file: string, configuration: Record<string, unknown>, application?: string) => {
    const response = await as(BOOTSTRAP_KEY).post('/reactors', {
      name: formula(file).name,
      formula: { id: formula(file).id },
      configuration,
      ...(application ? { application: { id: application } } : {}),
    });
    if (response.status !== 201) throw new Error(`create reactor: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.id as string;
  };
  const tokenCount = async () => (await as(revealer).post('/tokens/search', { query: 'type:token', size: 1 })).body.pagination.total_items as number;

  beforeAll(async () => {
    upstream = await startLocalHttpServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ approved: true, digits: JSON.parse(request.body).card_number.length }));
    });
    test = await startTestApp({ VAULT_REACTOR_ALLOWED_HOSTS: upstream.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const bus = test.app.get(VaultBus);
    for (const file of ['mask-email.json', 'forward-card.json', 'tokenize-payload.json']) {
      await bus.execute(new ImportOfficialFormulaCommand(formula(file), { type: 'operator', id: 'cli' }, 'import'));
    }
    const app = async (name: string, permissions: string[], rules: unknown[]) => createApplication(test, { name, type: 'private', permissions, rules });
    revealer = (await app('revealer', ALL, [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }])).key;
    masker = (await app('masker', ALL, [{ priority: 1, container: '/', transform: 'mask', permissions: ALL }])).key;
    pciMasker = (
      await app('pci masker', ALL, [
        { priority: 1, container: '/pci/', transform: 'mask', permissions: ALL },
        { priority: 2, container: '/', transform: 'reveal', permissions: ALL },
      ])
    ).key;
    useOnly = (await app('use only', ['token:use'], [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:use'] }])).key;
    revealApp = await app('reactor app', ALL, [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }]);
    card = (await as(revealer).post('/tokens', { type: 'card_number', data: CARD })).body.id;
    ssn = (await as(revealer).post('/tokens', { type: 'social_security_number', data: SSN })).body.id;
  });
  afterAll(async () => {
    await test?.close();
    await upstream?.close();
  });

  describe('F1: shaping the data in args needs a reveal rule', () => {
    it('Mask Email with an SSN spliced into the address: 403 naming args.email, the SSN nowhere in the answer', async () => {
      const id = await createReactor('mask-email.json', { mask_character: '*', reveal_domain: true });
      const response = await react(id, { email: `a@{{ ${ssn} }}` }, masker);
      expect(response.status).toBe(403);
      expect(Object.keys(response.body.errors)).toEqual(['args.email']);
      expect(response.body.errors['args.email'][0]).toMatch(/needs a token:read rule that reveals/);
      expect(response.text).not.toMatch(/078-?05-?1120/);
    });

    it('Forward Card with a slice of the card, embedded or alone: 403 naming args.card_number, nothing sent', async () => {
      const id = await createReactor('forward-card.json', { endpoint: upstream.url('/charges'), api_key: '' });
      const sent = upstream.received.length;
      for (const shaped of [`00000000{{ ${card} | slice: 0, 4 }}`, `{{ ${card} | slice: 0, 4 }}`, `{{ token: ${card} }} `]) {
        const response = await react(id, { card_number: shaped }, masker);
        expect(response.status).toBe(403);
        expect(Object.keys(response.body.errors)).toEqual(['args.card_number']);
        expect(response.text).not.toContain(CARD.slice(0, 6));
      }
      expect(upstream.received.length).toBe(sent);
    });

    it('the whole expression without filters still goes to the code for a masked caller', async () => {
      const id = await createReactor('forward-card.json', { endpoint: upstream.url('/charges'), api_key: '' });
      const response = await react(id, { card_number: `{{ token: ${card} }}`, amount: 100 }, masker);
      expect(response.status).toBe(200);
      expect(response.body.raw).toMatchObject({ ok: true, card_last4: '1111', response: { digits: 16 } });
      expect(JSON.parse(upstream.received.at(-1)!.body).card_number).toBe(CARD);
    });

    it('a caller whose read rule reveals the token may still use filters and embedding', async () => {
      const email = await createReactor('mask-email.json', { mask_character: '*', reveal_domain: true });
      const shaped = await react(email, { email: `a@{{ ${ssn} | remove: '-' }}.org` }, revealer);
      expect(shaped.status).toBe(200);
      expect(shaped.body.raw.domain).toBe('078051120.org');
      const forward = await createReactor('forward-card.json', { endpoint: upstream.url('/charges'), api_key: '' });
      const sliced = await react(forward, { card_number: `00000000{{ ${card} | slice: 0, 4 }}` }, revealer);
      expect(sliced.status).toBe(200);
      expect(sliced.body.raw.card_last4).toBe('4111');
    });
  });

  describe('F2: tokens made from the result do not launder the data', () => {
    it('Tokenize Payload as a caller masked on /pci/ and revealing on /: 403 naming tokenize (not the key), nothing created', async () => {
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      const before = await tokenCount();
      const response = await react(id, { payload: { card: `{{ ${card} }}` } }, pciMasker);
      expect(response.status).toBe(403);
      expect(Object.keys(response.body.errors)).toEqual(['tokenize']);
      expect(response.text).not.toContain(CARD);
      expect(await tokenCount()).toBe(before);
    });

    it('the same caller may tokenize the card where its rules show no more than the mask', async () => {
      const id = await createReactor('tokenize-payload.json', { container: '/pci/copies/', deduplicate: false });
      const response = await react(id, { payload: { card: `{{ ${card} }}` } }, pciMasker);
      expect(response.status).toBe(200);
      expect(response.body.tokens).toEqual([expect.objectContaining({ containers: ['/pci/copies/'] })]);
      expect(response.text).not.toContain(CARD);
    });

    it('Tokenize Payload as a reveal application: the tokens are shown by the caller\'s own rule (mask), never revealed', async () => {
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false }, revealApp.id);
      const response = await react(id, { payload: { card: `{{ ${card} }}` } }, masker);
      expect(response.status).toBe(200);
      expect(response.body.tokens).toEqual([expect.objectContaining({ id: expect.any(String), containers: ['/general/high/'] })]);
      expect(response.body.tokens[0]).not.toHaveProperty('data');
      expect(response.text).not.toContain(CARD);
      const read = await as(masker).get(`/tokens/${response.body.tokens[0].id}`);
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(CARD);
    });

    it('a caller with no token:read rule gets id-level fields only: no data, no fingerprint', async () => {
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false }, revealApp.id);
      const response = await react(id, { payload: { card: `{{ ${card} }}` } }, useOnly);
      expect(response.status).toBe(200);
      expect(response.body.tokens).toEqual([expect.objectContaining({ id: expect.any(String), type: 'token', containers: ['/general/high/'] })]);
      expect(response.body.tokens[0]).not.toHaveProperty('data');
      expect(response.body.tokens[0]).not.toHaveProperty('fingerprint');
    });

    it('deduplication as the reactor\'s application does not tell a caller without token:create whether a value exists', async () => {
      const existing = (await as(revealApp.key).post('/tokens', { type: 'token', data: GUESS, containers: ['/general/high/'] })).body;
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: true }, revealApp.id);
      // A caller whose own token:create rule covers the token gets it back.
      const covered = await react(id, { payload: { value: GUESS } }, revealer);
      expect(covered.body.tokens.value.id).toBe(existing.id);
      const guessed = await react(id, { payload: { value: GUESS } }, useOnly);
      expect(guessed.status).toBe(200);
      expect(guessed.body.tokens.value.id).not.toBe(existing.id);
      const unknown = await react(id, { payload: { value: `${GUESS}-never-stored` } }, useOnly);
      expect(Object.keys(guessed.body.tokens.value).sort()).toEqual(Object.keys(unknown.body.tokens.value).sort());
    });

    it('a reveal caller gets its tokens back revealed, as before', async () => {
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false }, revealApp.id);
      const response = await react(id, { payload: { card: `{{ ${card} }}`, note: `card {{ ${card} | slice: 12, 4 }}` } }, revealer);
      expect(response.status).toBe(200);
      expect(response.body.tokens.card).toMatchObject({ data: CARD, containers: ['/general/high/'] });
      expect(response.body.tokens.note).toMatchObject({ data: 'card 1111' });
    });
  });

  describe('re-review: a token made from data the caller does not reveal is shown id-only, and matches on nothing new', () => {
    const ID_ONLY = ['containers', 'created_at', 'created_by', 'id', 'metadata', 'type'];
    const plainToken = async (data: unknown) => (await as(revealer).post('/tokens', { type: 'token', data })).body.id as string;

    it('F1: a card_number made from a `token` token the masker sees without data shows no mask, no fingerprint', async () => {
      const unmasked = await plainToken(CARD);
      expect((await as(masker).get(`/tokens/${unmasked}`)).body).not.toHaveProperty('data');
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      const response = await react(id, { payload: { a: `{{ ${unmasked} }}` }, token_type: 'card_number' }, masker);
      expect(response.status).toBe(200);
      expect(response.body.tokens).toHaveLength(1);
      expect(Object.keys(response.body.tokens[0]).sort()).toEqual(ID_ONLY);
      expect(response.body.tokens[0].type).toBe('card_number');
      expect(JSON.stringify(response.body.tokens)).not.toMatch(/1111/);
    });

    it('F1: a conversion that fails validation is one 422 on errors.reactor naming no field', async () => {
      const notACard = await plainToken('not-a-card-number');
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      const before = await tokenCount();
      const response = await react(id, { payload: { a: `{{ ${notACard} }}` }, token_type: 'card_number' }, masker);
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ reactor: ["The reactor's tokenize result is not valid."] });
      expect(await tokenCount()).toBe(before);
    });

    it('F2: an object token split into fields answers an array, no key, no fingerprint; its 403 and 422 name no key', async () => {
      const object = await plainToken({ alice_ssn_key: 'first-value-x', bob_secret_key: 'second-value-y' });
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      const response = await react(id, { payload: `{{ ${object} }}` }, masker);
      expect(response.status).toBe(200);
      expect(Array.isArray(response.body.tokens)).toBe(true);
      expect(response.body.tokens).toHaveLength(2);
      for (const token of response.body.tokens) expect(Object.keys(token).sort()).toEqual(ID_ONLY);
      expect(JSON.stringify(response.body.tokens)).not.toMatch(/alice_ssn_key|bob_secret_key|first-value-x/);

      const pciObject = (await as(revealer).post('/tokens', { type: 'token', data: { alice_ssn_key: 'v-1234567' }, containers: ['/pci/'] })).body.id;
      const refused = await react(id, { payload: `{{ ${pciObject} }}` }, pciMasker);
      expect(refused.status).toBe(403);
      expect(Object.keys(refused.body.errors)).toEqual(['tokenize']);
      expect(refused.text).not.toContain('alice_ssn_key');

      const invalid = await react(id, { payload: `{{ ${object} }}`, token_type: 'social_security_number' }, masker);
      expect(invalid.status).toBe(422);
      expect(invalid.body.errors).toEqual({ reactor: ["The reactor's tokenize result is not valid."] });
      expect(invalid.text).not.toMatch(/alice_ssn_key|bob_secret_key/);
    });

    it('F5: the new tokens get no search indexes, so a masker cannot newly match on the data', async () => {
      const unindexed = await plainToken('219-09-9999');
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      const response = await react(id, { payload: { a: `{{ ${unindexed} }}` }, token_type: 'social_security_number' }, masker);
      expect(response.status).toBe(200);
      const made = await as(revealer).get(`/tokens/${response.body.tokens[0].id}`);
      expect(made.body).toMatchObject({ type: 'social_security_number', data: '219-09-9999', search_indexes: [] });
      const found = await as(masker).post('/tokens/search', { query: 'data:"219099999"' });
      expect(found.status).toBe(200);
      expect(found.body.pagination.total_items).toBe(0);
    });

    it('a caller who reveals every token its args used keeps the keyed shape and the type\'s search indexes', async () => {
      const revealed = await plainToken('219-09-8888');
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      const response = await react(id, { payload: { a: `{{ ${revealed} }}` }, token_type: 'social_security_number' }, revealer);
      expect(response.status).toBe(200);
      expect(response.body.tokens.a).toMatchObject({ data: '219-09-8888', fingerprint: expect.any(String) });
      expect(response.body.tokens.a.search_indexes.length).toBeGreaterThan(0);
    });
  });

  describe('third review: the caller\'s own later reads of a derived token show nothing derived from the data', () => {
    const plainToken = async (data: unknown, fields: Record<string, unknown> = {}) =>
      (await as(revealer).post('/tokens', { type: 'token', data, ...fields })).body.id as string;

    it('a card and an SSN made from `token` tokens the masker sees without data: its GET shows no mask, and no fingerprint links them', async () => {
      const unmaskedCard = await plainToken('4111111111111111');
      const unmaskedSsn = await plainToken('123-45-6789');
      const id = await createReactor('tokenize-payload.json', { container: '/general/high/', deduplicate: false });
      for (const [source, type] of [
        [unmaskedCard, 'card_number'],
        [unmaskedSsn, 'social_security_number'],
      ] as const) {
        const response = await react(id, { payload: { x: `{{ ${source} }}` }, token_type: type }, masker);
        expect(response.status).toBe(200);
        const made = await as(masker).get(`/tokens/${response.body.tokens[0].id}`);
        expect(made.status).toBe(200);
        expect(made.body).not.toHaveProperty('data');
        expect(withoutIdsAndTimes(made.text)).not.toMatch(/1111|6789/);
        // Its fingerprint is of a random value: a token the masker makes of a guess does not share it.
        const guess = await as(masker).post('/tokens', { type, data: type === 'card_number' ? '4111111111111111' : '123-45-6789' });
        expect(guess.body.fingerprint).not.toBe(made.body.fingerprint);
        const byFingerprint = await as(masker).post('/tokens/search', { query: `fingerprint:${guess.body.fingerprint}`, size: 100 });
        const found = byFingerprint.body.data.map((t: { id: string }) => t.id);
        expect(found).toContain(guess.body.id);
        expect(found).not.toContain(made.body.id);
      }
    });

    it('an object token split into fields by a redacting caller: no per-field fingerprint confirms a guess of a field', async () => {
      const redacter = (
        await createApplication(test, { name: 'redacter', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'redact', permissions: ALL }] })
      ).key;
      const object = await plainToken({ ssn: '987-65-4321', pin: '1234' });
      const id = await createReactor('tokenize-payload.json', { container: '', deduplicate: false });
      const response = await react(id, { payload: `{{ ${object} }}` }, redacter);
      expect(response.status).toBe(200);
      const guess = await as(redacter).post('/tokens', { type: 'token', data: '1234' });
      for (const { id: made } of response.body.tokens) {
        const view = await as(redacter).get(`/tokens/${made}`);
        expect(view.body.fingerprint).not.toBe(guess.body.fingerprint);
      }
      const byFingerprint = await as(redacter).post('/tokens/search', { query: `fingerprint:${guess.body.fingerprint}`, size: 100 });
      const found = byFingerprint.body.data.map((t: { id: string }) => t.id);
      expect(found).toContain(guess.body.id);
      for (const { id: made } of response.body.tokens) expect(found).not.toContain(made);
    });

    it('deduplication through a reactor application that reveals shows the match by the invoking caller\'s own create rule (mask), never more', async () => {
      const deduper = await createReactor('tokenize-payload.json', { container: '', deduplicate: true }, revealApp.id);
      const record = await as(revealer).post('/tokens', {
        type: 'token',
        data: { ssn: '123-45-6789', name: 'Ada Lovelace', dob: '1815-12-10' },
        fingerprint_expression: '{{ data.ssn | stringify }}',
      });
      expect(record.status).toBe(201);
      expect((await as(masker).get(`/tokens/${record.body.id}`)).body).not.toHaveProperty('data');
      const response = await react(deduper, { payload: { x: '123-45-6789' } }, masker);
      expect(response.status).toBe(200);
      expect(response.body.tokens.x.id).toBe(record.body.id);
      expect(response.body.tokens.x).not.toHaveProperty('data');
      expect(response.text).not.toMatch(/Lovelace|1815/);
      // A revealing caller's own deduplication still shows it revealed, and the reveal is recorded as that caller's
      // access (PCI DSS 10.2: who saw it), not the reactor application's.
      const revealing = await react(deduper, { payload: { x: '123-45-6789' } }, revealer);
      expect(revealing.body.tokens.x.data).toEqual({ ssn: '123-45-6789', name: 'Ada Lovelace', dob: '1815-12-10' });
      const apps = (await as(BOOTSTRAP_KEY).get('/applications?size=100')).body.data as Array<{ id: string; name: string }>;
      const revealerId = apps.find((app) => app.name === 'revealer')!.id;
      const log = (await as(BOOTSTRAP_KEY).get(`/logs?entity_id=${record.body.id}`)).body.data as Array<{ operation: string; message: string; actor_id: string }>;
      const reveals = log.filter((entry) => entry.operation === 'reveal' && entry.message.includes('deduplication'));
      expect(reveals.map((entry) => entry.actor_id)).toEqual([revealerId]);
    });
  });
});
