// POST /detokenize against callers trying to see more than their token:read rule shows (the promise of "What a write may reveal", "Tokenize and detokenize"): filters work on what the rule shows (the mask), never on the data; a redacted
// token gives nothing, not even its length; a token outside the rules is the same 400 as one that does not exist; and
// no error body or log line holds token data.
import { randomUUID } from 'node:crypto';
import { asKey, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
const NOT_FOUND = 'The detokenization expression refers to a token that was not found.';
// Data whose every part is recognisable in a response; the mask shows the last four of the number only.
const NUMBER = '4929381726354650';
const DATA = { number: NUMBER, cvc: 'Zq9Cvc918', holder: 'Zq9Holder Secretname' };
const MASK = '{{ data.number | last4 }}';
const SHOWN = NUMBER.slice(-4);
/** Pieces of the data that the mask does not show. */
const HIDDEN = [NUMBER.slice(0, 12), NUMBER.slice(4, 12), 'Zq9Cvc918', 'Zq9Holder', 'Secretname', '"cvc"', '"holder"'];

describe('detokenize never shows more than the caller\'s token:read rule', () => {
  let test: TestApp;
  let owner: string; // reveal on / for everything
  let masker: string; // token:read mask on /
  let redactor: string; // token:read redact on /
  let mixed: string; // reveal for every permission but token:read, mask for token:read
  let outsider: string; // token:read reveal on /elsewhere/ only
  let card: string; // the token with DATA and MASK, in /cards/
  let unmasked: string; // a token without a mask
  const as = (key: string) => asKey(test, key);
  const detokenize = (key: string, body: unknown) => as(key).post('/detokenize', body);
  const expectNoData = (text: string) => {
    for (const piece of HIDDEN) expect(text).not.toContain(piece);
  };

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const app = async (name: string, rules: unknown[]) => (await createApplication(test, { name, type: 'private', permissions: ALL, rules })).key;
    owner = await app('owner', [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }]);
    masker = await app('masker', [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:read'] }]);
    redactor = await app('redactor', [{ priority: 1, container: '/', transform: 'redact', permissions: ['token:read'] }]);
    mixed = await app('mixed', [
      { priority: 1, container: '/', transform: 'reveal', permissions: ALL.filter((p) => p !== 'token:read') },
      { priority: 2, container: '/', transform: 'mask', permissions: ['token:read'] },
    ]);
    outsider = await app('outsider', [{ priority: 1, container: '/elsewhere/', transform: 'reveal', permissions: ALL }]);
    const created = await as(owner).post('/tokens', { type: 'token', data: DATA, mask: MASK, containers: ['/cards/'] });
    expect(created.status).toBe(201);
    card = created.body.id;
    unmasked = (await as(owner).post('/tokens', { type: 'token', data: 'Zq9Holder without mask' })).body.id;
  });
  afterAll(() => test.close());

  describe('a mask-rule caller gets the mask, through any filter', () => {
    // Each filter chain applied to the mask string: what the caller may compute anyway from GET /tokens/{id}.
    it.each<[string, unknown]>([
      ['', SHOWN],
      [" | json: '$'", SHOWN],
      [" | json: '$.number'", ''],
      [" | json: '$.cvc'", ''],
      [' | size', '4'],
      [' | slice: 0, 1', SHOWN.slice(0, 1)],
      [' | stringify', JSON.stringify(SHOWN)],
      [" | split: '' | first", SHOWN[0]],
      [' | upcase', SHOWN],
      [" | append: '!'", `${SHOWN}!`],
      [' | reveal_last: 2', `XX${SHOWN.slice(-2)}`],
    ])('{{ id%s }}', async (filters, expected) => {
      const response = await detokenize(masker, { value: `{{ ${card}${filters} }}` });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ value: expected });
      expectNoData(response.text);
    });

    it('a reveal rule for other permissions does not open detokenize: token:read decides', async () => {
      const response = await detokenize(mixed, { value: `{{ ${card} }}`, size: `{{ ${card} | size }}` });
      expect(response.body).toEqual({ value: SHOWN, size: '4' });
      expectNoData(response.text);
    });

    it('embedded in a longer string, still the mask', async () => {
      const response = await detokenize(masker, [`card: {{ ${card} }} / {{ ${card} | json: '$' | size }}`]);
      expect(response.body).toEqual([`card: ${SHOWN} / 4`]);
    });

    it('a token without a mask shows nothing: a 403, whatever the filters', async () => {
      for (const filters of ['', " | default: 'x'", ' | size']) {
        const response = await detokenize(masker, { value: `{{ ${unmasked}${filters} }}` });
        expect(response.status).toBe(403);
        expect(response.text).not.toContain('without mask');
      }
    });
  });

  it('a redact-rule caller gets a 403 naming the path, even for filters that would only tell a length', async () => {
    for (const filters of ['', ' | size', " | json: '$.number' | size", ' | slice: 0, 0']) {
      const response = await detokenize(redactor, { deep: [{ value: `{{ ${card}${filters} }}` }] });
      expect(response.status).toBe(403);
      expect(response.body.detail).toBe('The access rule that applies to the token at deep[0].value does not show its data.');
      expectNoData(response.text);
    }
  });

  describe('a token the caller may not read is a token that does not exist', () => {
    const probe = async (key: string, id: string) => {
      const response = await detokenize(key, { probe: `{{ ${id} | size }}` });
      return { status: response.status, body: response.body, headers: [response.headers['content-type']] };
    };

    it('outside the caller\'s rules: the same status, body and headers as an unknown id', async () => {
      const unknown = await probe(outsider, randomUUID());
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toEqual({ probe: [NOT_FOUND] });
      expect(await probe(outsider, card)).toEqual(unknown);
    });

    it('another tenant\'s token: the same as an unknown id', async () => {
      const other = await createTenant(test, `attacker-${randomUUID()}`);
      const attacker = (
        await createApplication(
          test,
          { name: 'attacker', type: 'private', permissions: ['token:read'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] }] },
          other.management_key,
        )
      ).key;
      expect(await probe(attacker, card)).toEqual(await probe(attacker, randomUUID()));
    });

    it('a deleted token: the same as an unknown id, for its former readers too', async () => {
      const id = (await as(owner).post('/tokens', { type: 'token', data: 'Zq9Holder soon deleted' })).body.id;
      expect((await as(owner).delete(`/tokens/${id}`)).status).toBe(204);
      expect(await probe(owner, id)).toEqual(await probe(owner, randomUUID()));
    });
  });

  it('filter failures on revealed data answer with the problem, never the data', async () => {
    for (const filters of [" | json: '$..holder'", " | json: '$['", " | json: '$.holder' | json: '$.x.y['", ' | json: 5']) {
      const response = await detokenize(owner, { value: `{{ ${card}${filters} }}` });
      expect(response.status).toBe(400);
      expectNoData(response.text);
      expect(response.text).not.toContain(NUMBER.slice(-4));
    }
  });

  it('leaves no token data in the logs', () => {
    const logs = test.logs.join('\n');
    expect(logs).toContain('"status":200'); // the requests were logged
    expectNoData(logs);
    expect(logs).not.toContain('without mask');
  });
});
