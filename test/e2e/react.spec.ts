// POST /reactors/{id}/react over HTTP ("Reactors" in the API guide): args detokenized for token:use, checked against the
// formula's request parameters, the code run with the opened configuration, its tokenize tokenized as the reactor's
// application (else the caller), and what the caller may and may not learn along the way.
import { randomUUID } from 'node:crypto';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
const CARD = '4242424242424242';
const SECRET = 'sk_live_Zq9TRXBKMW4hPLDH';

/** A private formula: `code` is the body of the exported async function, `req` its request. */
const aFormula = (code: string, overrides: Record<string, unknown> = {}) => ({
  name: `Formula ${randomUUID()}`,
  type: 'private',
  code: `module.exports = async function (req) { ${code} };`,
  configuration: [{ name: 'api_key', description: 'Upstream key', type: 'string' }],
  request_parameters: [],
  ...overrides,
});

describe('POST /reactors/{id}/react', () => {
  let test: TestApp;
  let caller: string; // mask on / with every token permission: sees masks, may use data
  let reader: string; // token:read and token:create only, no token:use
  let noUse: string; // token:use permission, but its rule on / grants only token:read
  let pciOnly: { id: string; key: string }; // a private application whose rules create only in /pci/
  let other: { tenant_id: string; management_key: string };
  const as = (key: string) => asKey(test, key);
  const admin = () => as(BOOTSTRAP_KEY);
  const createReactor = async (code: string, options: { formula?: Record<string, unknown>; reactor?: Record<string, unknown>; key?: string } = {}) => {
    const formula = await as(options.key ?? BOOTSTRAP_KEY).post('/reactor-formulas', aFormula(code, options.formula));
    if (formula.status !== 201) throw new Error(`create formula: ${formula.status} ${JSON.stringify(formula.body)}`);
    const reactor = await as(options.key ?? BOOTSTRAP_KEY).post('/reactors', {
      name: 'Reactor',
      formula: { id: formula.body.id },
      configuration: { api_key: SECRET },
      ...options.reactor,
    });
    if (reactor.status !== 201) throw new Error(`create reactor: ${reactor.status} ${JSON.stringify(reactor.body)}`);
    return reactor.body.id as string;
  };
  const react = (id: string, body: unknown, key = caller) => as(key).post(`/reactors/${id}/react`, body);
  const tokenize = async (body: unknown) => {
    const response = await as(caller).post('/tokenize', body);
    if (response.status !== 201) throw new Error(`tokenize: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const app = async (name: string, permissions: string[], rules?: unknown[]) =>
      createApplication(test, { name, type: 'private', permissions, ...(rules ? { rules } : {}) });
    caller = (await app('caller', ALL, [{ priority: 1, container: '/', transform: 'mask', permissions: ALL }])).key;
    reader = (await app('reader', ['token:read', 'token:create'])).key;
    noUse = (await app('no use', ['token:read', 'token:use'], [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:read'] }])).key;
    pciOnly = await app('pci only', ['token:create', 'token:read'], [
      { priority: 1, container: '/pci/', transform: 'reveal', permissions: ['token:create', 'token:read'] },
    ]);
    other = await createTenant(test, 'other');
  });
  afterAll(() => test.close());

  it('runs the code on the detokenized card with the opened configuration; the caller only ever sees the mask', async () => {
    const card = await tokenize({ type: 'card_number', data: CARD, mask: '{{ data | last4 }}' });
    expect(card.data).toBe('4242');
    const id = await createReactor(
      `return { raw: { last4: req.args.card.number.slice(-4), length: req.args.card.number.length, starts: req.args.card.number.slice(0, 6),
         key_length: req.configuration.api_key.length, note: req.args.note } };`,
      { formula: { request_parameters: [{ name: 'card.number', type: 'string' }] } },
    );
    const response = await react(id, { args: { card: { number: `{{ ${card.id} }}` }, note: 'plain' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      tokens: null,
      raw: { last4: '4242', length: 16, starts: '424242', key_length: SECRET.length, note: 'plain' },
    });
    // Filters or embedding would choose what part of the data the code copies into raw: a reveal rule's privilege.
    const shaped = await react(id, { args: { card: { number: `{{ ${card.id} }}` }, note: `card {{ token: ${card.id} | last4 }}` } });
    expect(shaped.status).toBe(403);
    expect(Object.keys(shaped.body.errors)).toEqual(['args.note']);
  });

  it('answers { tokens, raw } with tokenize tokenized as POST /tokenize does, shown under the caller\'s rule', async () => {
    const id = await createReactor(`return { raw: { n: 1 }, tokenize: { ssn: { type: 'social_security_number', data: req.args.ssn }, list: ['a', null] } };`);
    const response = await react(id, { args: { ssn: '123-45-6789' } });
    expect(response.status).toBe(200);
    expect(response.body.raw).toEqual({ n: 1 });
    expect(response.body.tokens).toMatchObject({
      ssn: { id: expect.any(String), type: 'social_security_number', containers: ['/pii/high/'] },
      list: [{ id: expect.any(String), type: 'token' }, null],
    });
    // The caller's rule is mask: the data of the new tokens is not shown to it.
    expect(response.body.tokens.ssn.data).not.toBe('123-45-6789');
    const stored = await as(caller).get(`/tokens/${response.body.tokens.ssn.id}`);
    expect(stored.status).toBe(200);
  });

  it('tokenizes as the reactor\'s application: its rules, not the caller\'s, decide the containers and the view', async () => {
    const id = await createReactor(`return { raw: null, tokenize: { card: { type: 'card_number', data: req.args.card } } };`, {
      reactor: { application: { id: pciOnly.id } },
    });
    const response = await react(id, { args: { card: CARD } });
    expect(response.status).toBe(200);
    // pciOnly's rule reveals /pci/: the token is shown as that application sees it.
    expect(response.body.tokens.card).toMatchObject({ type: 'card_number', data: CARD, containers: ['/pci/high/'] });
    expect((await as(pciOnly.key).get(`/tokens/${response.body.tokens.card.id}`)).body.data).toBe(CARD);
  });

  it('is a 403 naming each path the reactor\'s application may not create in, and creates no token at all', async () => {
    const allowed = randomUUID();
    const refused = randomUUID();
    const id = await createReactor(
      `return { raw: { marker: 'Xq7marker' }, tokenize: {
        card: { id: req.args.allowed, type: 'card_number', data: '${CARD}' },
        note: { id: req.args.refused, type: 'token', data: 'x', containers: ['/general/'] } } };`,
      { reactor: { application: { id: pciOnly.id } } },
    );
    const response = await react(id, { args: { allowed, refused } });
    expect(response.status).toBe(403);
    expect(Object.keys(response.body.errors)).toEqual(['tokenize.note.containers']);
    expect(response.text).not.toContain('Xq7marker');
    for (const tokenId of [allowed, refused]) expect((await as(caller).get(`/tokens/${tokenId}`)).status).toBe(404);
  });

  it('is a 422 naming reactor.application once that application is deleted, and the code does not run', async () => {
    const app = await createApplication(test, { name: 'short-lived', type: 'private', permissions: ['token:create'] });
    const id = await createReactor(`throw new Error('the code ran');`, { reactor: { application: { id: app.id } } });
    expect((await admin().delete(`/applications/${app.id}`)).status).toBe(204);
    const response = await react(id, { args: {} });
    expect(response.status).toBe(422);
    expect(Object.keys(response.body.errors)).toEqual(['reactor.application']);
  });

  it('turns a tokenize that is not a valid tokenize body into a 422 naming its paths', async () => {
    const id = await createReactor(`return { raw: { n: 1 }, tokenize: { card: { type: 'no_such_type', data: 'x' } } };`);
    const response = await react(id, { args: {} });
    expect(response.status).toBe(422);
    expect(response.body.errors.reactor).toEqual([expect.stringMatching(/tokenize/)]);
    expect(Object.keys(response.body.errors).filter((key) => key !== 'reactor')).toEqual([expect.stringMatching(/^tokenize\.card/)]);
  });

  describe('args', () => {
    let strict: string;
    beforeAll(async () => {
      strict = await createReactor('return { raw: req.args };', {
        formula: {
          request_parameters: [
            { name: 'card.number', type: 'string' },
            { name: 'amount', type: 'number' },
            { name: 'note', type: 'string', optional: true },
          ],
        },
      });
    });

    it('is a 400 for an optional parameter sent as null, as for any value not of its type', async () => {
      const response = await react(strict, { args: { card: { number: '4111' }, amount: 5, note: null } });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ 'args.note': ['args.note must be a string.'] });
    });

    it('takes a body of at most 10,000 values, { args } included, before any detokenization: past it, a 400 on body', async () => {
      const id = await createReactor('return { raw: { n: req.args.length } };');
      // { args: [ …9,998 values ] } holds 10,000 values: the body object, the array and its items.
      expect((await react(id, { args: Array(9_998).fill(0) })).body).toEqual({ tokens: null, raw: { n: 9_998 } });
      const over = await react(id, { args: Array(9_999).fill(0) });
      expect(over.status).toBe(400);
      expect(over.body.errors).toEqual({ body: ['The body must hold at most 10000 values (containers, nulls and leaves).'] });
    });

    it('passes undeclared properties and an absent optional one', async () => {
      const response = await react(strict, { args: { card: { number: '4111' }, amount: 5, extra: [1, { x: null }] } });
      expect(response.status).toBe(200);
      expect(response.body.raw).toEqual({ card: { number: '4111' }, amount: 5, extra: [1, { x: null }] });
    });

    it('is one 400 naming every args.<path> that is missing or of another type, never quoting a value', async () => {
      const response = await react(strict, { args: { card: { number: 4111 }, note: 'Zq9secret' } });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body.errors).sort()).toEqual(['args.amount', 'args.card.number']);
      expect(response.text).not.toMatch(/4111|Zq9secret/);
    });

    it('checks the detokenized args: a number token fits a number parameter, a string token does not', async () => {
      const [amount, text] = await tokenize([42, 'forty-two']);
      const ok = await react(strict, { args: { card: { number: '4111' }, amount: `{{ ${amount.id} }}` } });
      expect(ok.status).toBe(200);
      expect(ok.body.raw.amount).toBe(42);
      const bad = await react(strict, { args: { card: { number: '4111' }, amount: `{{ ${text.id} }}` } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual({ 'args.amount': ['args.amount must be a number.'] });
    });

    it('answers a missing token and one no token:use rule covers with the same 400 naming args.<path>', async () => {
      const [token] = await tokenize(['covered for read only']);
      const id = await createReactor('return { raw: req.args };');
      const missing = await react(id, { args: { x: [`{{ ${randomUUID()} }}`] } }, noUse);
      const uncovered = await react(id, { args: { x: [`{{ ${token.id} }}`] } }, noUse);
      expect([missing.status, uncovered.status]).toEqual([400, 400]);
      expect(Object.keys(missing.body.errors)).toEqual(['args.x[0]']);
      expect(uncovered.body).toEqual(missing.body);
      // The same token, for a caller whose rule grants token:use: used, and what the code hands back of it is the
      // caller's own view (a `token` without a mask, under a mask rule: nothing).
      expect((await react(id, { args: { x: [`{{ ${token.id} }}`] } })).body.raw).toEqual({ x: ['[redacted]'] });
    });

    it('takes no body or empty args as {}, and refuses another property or a body that is not an object', async () => {
      const id = await createReactor('return { raw: req.args };');
      expect((await react(id, undefined)).body).toEqual({ tokens: null, raw: {} });
      expect((await react(id, {})).body).toEqual({ tokens: null, raw: {} });
      const extra = await react(id, { args: {}, code: 'x' });
      expect(extra.status).toBe(400);
      expect(Object.keys(extra.body.errors)).toEqual(['code']);
    });
  });

  describe('access', () => {
    it('needs token:use: 403 for an application without it', async () => {
      const id = await createReactor('return { raw: { n: 1 } };');
      expect((await react(id, { args: {} }, reader)).status).toBe(403);
    });

    it('is a 404 for an unknown, deleted or other tenant\'s reactor, and a 400 for a malformed id', async () => {
      const id = await createReactor('return { raw: { n: 1 } };');
      const otherApp = await createApplication(
        test,
        { name: 'other user', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] },
        other.management_key,
      );
      expect((await react(id, { args: {} }, otherApp.key)).status).toBe(404);
      expect((await react(randomUUID(), { args: {} })).status).toBe(404);
      expect((await react('not-a-uuid', { args: {} })).status).toBe(400);
      expect((await admin().delete(`/reactors/${id}`)).status).toBe(204);
      expect((await react(id, { args: {} })).status).toBe(404);
    });

    it('runs the formula\'s current code: an update of the formula applies to the next invocation', async () => {
      const formula = await admin().post('/reactor-formulas', aFormula('return { raw: { v: 1 } };'));
      const reactor = await admin().post('/reactors', { name: 'Versioned', formula: { id: formula.body.id }, configuration: { api_key: 'k' } });
      expect((await react(reactor.body.id, {})).body.raw).toEqual({ v: 1 });
      const { id: _id, status: _status, created_at: _c, created_by: _b, modified_at: _m, modified_by: _mb, tenant_id: _t, ...body } = formula.body;
      const updated = await admin().put(`/reactor-formulas/${formula.body.id}`, { ...body, code: 'module.exports = async () => ({ raw: { v: 2 } });' });
      expect(updated.status).toBe(200);
      expect((await react(reactor.body.id, {})).body.raw).toEqual({ v: 2 });
    });
  });

  describe('failures', () => {
    it('is a 422 with the thrown message in errors.reactor; args, configuration, raw and the message never reach the logs', async () => {
      const id = await createReactor(`throw new Error('upstream refused ' + req.args.card + ' with ' + req.configuration.api_key);`);
      const card = await tokenize({ type: 'card_number', data: CARD });
      const response = await react(id, { args: { card: `{{ ${card.id} }}` } });
      expect(response.status).toBe(422);
      // The message comes through with the token's data and the configuration taken out (test/security/react-errors.spec.ts).
      expect(response.body.errors).toEqual({ reactor: [expect.stringContaining('upstream refused [redacted] with [redacted]')] });
      const leaky = await createReactor('return { raw: { echoed: req.args.card, key: req.configuration.api_key } };');
      // What the code hands back: the card as the caller's own rule shows it (its mask); the configuration is the
      // formula author's to return.
      expect((await react(leaky, { args: { card: `{{ ${card.id} }}` } })).body.raw).toEqual({ echoed: 'XXXXXXXXXXXX4242', key: SECRET });
      const logs = test.logs.join('\n');
      expect(logs).toMatch(/react/);
      expect(logs).not.toContain(CARD);
      expect(logs).not.toContain(SECRET);
      expect(logs).not.toContain('upstream refused');
    });

    it('is a 422 for a result that is not an object of JSON values', async () => {
      const notObject = await createReactor('return 42;');
      const fn = await createReactor('return { raw: () => 1 };');
      for (const id of [notObject, fn]) {
        const response = await react(id, {});
        expect(response.status).toBe(422);
        expect(response.body.errors.reactor).toEqual([expect.any(String)]);
      }
    });

    // SPEC: the response is an object, and so is its raw; its tokenize is what POST /tokenize takes.
    it.each<[string, string, RegExp]>([
      ['a Date', 'return new Date(0);', /must return an object \{ raw, tokenize \} or nothing, not a Date\./],
      ['a Map', 'return new Map([["raw", 1]]);', /not a Map\./],
      ['a RegExp', 'return /x/;', /not a RegExp\./],
      ['an Error', 'return new Error("x");', /not an Error\./],
      ['a class instance with a raw field', 'return new (class { raw = { n: 1 }; })();', /not an instance of a class\./],
      ['a raw that is a string', 'return { raw: "str" };', /raw is a string, not an object/],
      ['a raw that is an array', 'return { raw: [1] };', /raw is an array, not an object/],
    ])('is a 422 for %s returned', async (_title, code, message) => {
      const response = await react(await createReactor(code), {});
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ errors: { reactor: [expect.stringMatching(message)] } });
    });

    it.each([['"bare string"'], ['42'], ['true']])('is a 422, creating nothing, for a tokenize of %s, which POST /tokenize refuses', async (value) => {
      const response = await react(await createReactor(`return { tokenize: ${value} };`), {});
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({
        reactor: [expect.stringMatching(/tokenize/)],
        tokenize: [expect.stringMatching(/^tokenize must be a token create request, an array or an object, not a (string|number|boolean)\.$/)],
      });
    });

    it('accepts a hashbang first line, as Node.js does', async () => {
      const formula = await admin().post('/reactor-formulas', aFormula('', { code: '#!/usr/bin/env node\nmodule.exports = async () => ({ raw: { n: 1 } });' }));
      expect(formula.status).toBe(201);
      const reactor = await admin().post('/reactors', { name: 'Hashbang', formula: { id: formula.body.id }, configuration: { api_key: 'k' } });
      expect((await react(reactor.body.id, {})).body).toEqual({ tokens: null, raw: { n: 1 } });
    });

    it.each([['module.exports = class {};'], ['module.exports = function* () {};'], ['module.exports = async function* () {};']])(
      'refuses formula code that exports what cannot serve as the async function: %s',
      async (code) => {
        const response = await admin().post('/reactor-formulas', aFormula('', { code }));
        expect(response.status).toBe(422);
        expect(response.body.errors.code).toEqual([expect.stringMatching(/^module\.exports must be an async function .*, not an? (class|generator function|async generator function): /)]);
      },
    );
  });
});
