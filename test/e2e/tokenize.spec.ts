// POST /tokenize and its alias POST /tokens/tokenize, through the HTTP API ("Tokenize and detokenize" in the API guide).
import { randomUUID } from 'node:crypto';
import { asKey, createApplication, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search'];
const SSN = '123-45-6789';
const CARD = '4242424242424242';

interface Token {
  id: string;
  type: string;
  data?: unknown;
  containers: string[];
  metadata: Record<string, string>;
}

describe('POST /tokenize', () => {
  let test: TestApp;
  let full: string; // reveal on / for every token permission
  let ruled: string; // reveal /pii/, mask /pci/, redact /general/
  let narrow: string; // token:create on /pii/ only
  let reader: string; // token:read only
  const as = (key: string) => asKey(test, key);
  const tokenize = (body: unknown, key = full, path = '/tokenize') => as(key).post(path, body);
  /** The tokens carrying this metadata marker, as the full application finds them. */
  const marked = async (marker: string) =>
    (await as(full).post('/tokens/search', { query: `metadata.batch:"${marker}"`, size: 100 })).body.pagination.total_items as number;

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const app = async (name: string, permissions: string[], rules?: unknown[]) =>
      (await createApplication(test, { name, type: 'private', permissions, ...(rules ? { rules } : {}) })).key;
    full = await app('full', ALL, [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }]);
    ruled = await app('ruled', ALL, [
      { priority: 1, container: '/pii/', transform: 'reveal', permissions: ALL },
      { priority: 2, container: '/pci/', transform: 'mask', permissions: ALL },
      { priority: 3, container: '/general/', transform: 'redact', permissions: ALL },
    ]);
    narrow = await app('narrow', ['token:create'], [{ priority: 1, container: '/pii/', transform: 'reveal', permissions: ['token:create'] }]);
    reader = await app('reader', ['token:read']);
  });
  afterAll(() => test.close());

  describe('shapes', () => {
    it('a body that is one request answers 201 with that token, as POST /tokens would', async () => {
      const response = await tokenize({ type: 'social_security_number', data: SSN, metadata: { source: 'web' } });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toMatchObject({ type: 'social_security_number', data: SSN, containers: ['/pii/high/'], metadata: { source: 'web' } });
      expect((await as(full).get(`/tokens/${response.body.id}`)).body.data).toBe(SSN);
    });

    it('an array: each request and each leaf becomes a token in its place, null stays null', async () => {
      const response = await tokenize([{ type: 'card_number', data: CARD }, 'note', 42, false, null]);
      expect(response.status).toBe(201);
      const [card, note, number, flag, nothing] = response.body as [Token, Token, Token, Token, null];
      expect(card).toMatchObject({ type: 'card_number', data: CARD, containers: ['/pci/high/'] });
      expect([note.type, note.data, number.data, flag.data, nothing]).toEqual(['token', 'note', 42, false, null]);
      expect(note.containers).toEqual(['/general/high/']);
      expect(new Set([card.id, note.id, number.id, flag.id]).size).toBe(4);
    });

    it('a nested object keeps its shape, with requests and leaves replaced and empty parts kept', async () => {
      const response = await tokenize({
        customer: { name: 'Ada', card: { type: 'card_number', data: CARD, metadata: { kind: 'primary' } }, tags: ['vip', null] },
        empty: {},
        none: [],
      });
      expect(response.status).toBe(201);
      const body = response.body;
      expect(Object.keys(body)).toEqual(['customer', 'empty', 'none']);
      expect(Object.keys(body.customer)).toEqual(['name', 'card', 'tags']);
      expect(body.customer.name).toMatchObject({ type: 'token', data: 'Ada' });
      expect(body.customer.card).toMatchObject({ type: 'card_number', data: CARD, metadata: { kind: 'primary' } });
      expect(body.customer.tags[0]).toMatchObject({ data: 'vip' });
      expect(body.customer.tags[1]).toBeNull();
      expect([body.empty, body.none]).toEqual([{}, []]);
    });

    it('POST /tokens/tokenize is the same endpoint, and both take a trailing slash', async () => {
      for (const path of ['/tokens/tokenize', '/tokenize/', '/tokens/tokenize/']) {
        const response = await tokenize(['x', { type: 'token', data: { a: 1 } }], full, path);
        expect(response.status).toBe(201);
        expect((response.body as Token[]).map((t) => t.data)).toEqual(['x', { a: 1 }]);
      }
    });

    it.each([['"text"'], ['12'], ['true'], ['null']])('a body that is %s is a 400 on body', async (text) => {
      const response = await test.http().post('/tokenize').set('SVC-API-KEY', full).set('Content-Type', 'application/json').send(text);
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ body: [expect.stringMatching(/^The body must be a token create request, an array or an object, not /)] });
    });

    it('no body at all is a 400 on body; invalid JSON is the usual 400 with a position', async () => {
      const none = await test.http().post('/tokenize').set('SVC-API-KEY', full);
      expect(none.status).toBe(400);
      expect(none.body.errors).toEqual({ body: ['A JSON request body is required.'] });
      const broken = await test.http().post('/tokenize').set('SVC-API-KEY', full).set('Content-Type', 'application/json').send('[{"type":"token","data":');
      expect(broken.status).toBe(400);
      expect(broken.body.errors).toEqual({ body: ['body is not valid JSON: expected a value before the end of the body at line 1, column 25 (character 24).'] });
    });
  });

  describe('refusals create nothing', () => {
    it('names every bad path in one 400, and creates none of the good requests', async () => {
      const marker = randomUUID();
      const good = { type: 'social_security_number', data: SSN, metadata: { batch: marker } };
      const response = await tokenize({
        first: good,
        cards: [{ type: 'card_number', data: '4242424242424241' }, { ...good, type: 'nope' }],
        deep: { person: { type: 'token', data: 1, containers: ['not a container'], extra: true } },
        last: good,
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors).sort()).toEqual(['cards[0].data', 'cards[1].type', 'deep.person.containers[0]', 'deep.person.extra']);
      expect(JSON.stringify(response.body)).not.toContain('4242424242424241');
      expect(await marked(marker)).toBe(0);
    });

    it('refuses more than 100 tokens with a 400 on body, creating none', async () => {
      const marker = randomUUID();
      const request = { type: 'token', data: 'x', metadata: { batch: marker } };
      const response = await tokenize({ requests: Array(100).fill(request), leaf: 'one too many' });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ body: ['A tokenize request creates at most 100 tokens.'] });
      expect(await marked(marker)).toBe(0);
      const hundred = await tokenize(Array(100).fill(request));
      expect(hundred.status).toBe(201);
      expect(await marked(marker)).toBe(100);
    });

    it('answers 403 naming the path when the caller has no token:create rule on a token\'s containers, creating none', async () => {
      const marker = randomUUID();
      const response = await tokenize(
        { ok: { type: 'social_security_number', data: SSN, metadata: { batch: marker } }, pay: { card: { type: 'card_number', data: CARD } } },
        narrow,
      );
      expect(response.status).toBe(403);
      expect(response.body.detail).toBe('No access rule of this application grants token:create on the containers of the token at pay.card.');
      expect(response.body.errors).toEqual({ 'pay.card.containers': ["No access rule of this application grants token:create on this token's containers."] });
      expect(JSON.stringify(response.body)).not.toContain(CARD);
      expect(await marked(marker)).toBe(0);
    });

    it('needs token:create', async () => {
      const response = await tokenize(['x'], reader);
      expect(response.status).toBe(403);
      expect(response.body.detail).toBe('The application lacks the token:create permission.');
    });

    it('answers 409 naming the path of a custom id already taken in the tenant, creating none', async () => {
      const marker = randomUUID();
      const id = randomUUID();
      expect((await as(full).post('/tokens', { id, type: 'token', data: 'first' })).status).toBe(201);
      const response = await tokenize([{ type: 'token', data: 'a', metadata: { batch: marker } }, { id, type: 'token', data: 'b', metadata: { batch: marker } }]);
      expect(response.status).toBe(409);
      expect(response.body.detail).toBe('The id of the request at [1] is already taken in this tenant.');
      expect(await marked(marker)).toBe(0);
    });
  });

  describe('what the answer shows', () => {
    it('each token under the caller\'s token:create rule for it: reveal, mask, redact', async () => {
      const response = await tokenize({ ssn: { type: 'social_security_number', data: SSN }, card: { type: 'card_number', data: CARD }, note: 'secret note' }, ruled);
      expect(response.status).toBe(201);
      expect(response.body.ssn.data).toBe(SSN);
      expect(response.body.card.data).toBe('XXXXXXXXXXXX4242');
      expect('data' in response.body.note).toBe(false);
      expect(JSON.stringify(response.body)).not.toContain('secret note');
    });

    it('deduplicates as POST /tokens does, also between requests of one body', async () => {
      const existing = await as(full).post('/tokens', { type: 'social_security_number', data: '222-33-4444' });
      const dedupe = { type: 'social_security_number', data: '222334444', deduplicate_token: true };
      const fresh = { type: 'card_number', data: '4000056655665556', deduplicate_token: true };
      const response = await tokenize([dedupe, fresh, fresh]);
      expect(response.status).toBe(201);
      const [found, first, second] = response.body as Token[];
      expect(found.id).toBe(existing.body.id);
      expect(second.id).toBe(first.id);
      expect(first.id).not.toBe(existing.body.id);
      // The deduplicated tokens exist once: the card was created once.
      const cards = await as(full).post('/tokens/search', { query: `id:${first.id}` });
      expect(cards.body.pagination.total_items).toBe(1);
    });
  });

  it('answers after the read models have every token (read-your-writes), and counts the created events', async () => {
    const metric = async () => {
      const text = (await test.http().get('/metrics')).text;
      return Number(/^vault_events_appended_total\{type="TokenCreated"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await metric();
    const response = await tokenize(['a', 'b', { type: 'token', data: 'c' }]);
    expect(response.status).toBe(201);
    expect(response.headers['x-projection-pending']).toBeUndefined();
    for (const token of response.body as Token[]) expect((await as(full).get(`/tokens/${token.id}`)).status).toBe(200);
    expect((await metric()) - before).toBe(3);
  });
});
