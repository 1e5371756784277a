// What flows back from a reactor: its `raw`, its error and the tokens it makes reach a caller who may use the args'
// tokens without seeing them, so every value the request detokenized comes back as the caller's own view of it, in
// whatever encoding the code or an echoing endpoint wrote it; the audit log records each replacement. Also: a request
// in flight when its application is revoked answers 401, and a reactor's hidden configuration stays where it was put.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import { VaultBus } from '@vault/nest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const DIR = join(__dirname, '..', '..', 'formulas', 'official');
const FORWARD_CARD = JSON.parse(readFileSync(join(DIR, 'forward-card.json'), 'utf8'));
const CARD1 = '4242424242424242';
const CARD2 = '5555555555554444';
const SSN = '078-05-1120';

/** Every way the answer might carry a value, as a reader of the answer would undo it. */
const encodings = (value: string): string[] => [
  value,
  value.replace(/[^0-9A-Za-z]/g, ''),
  encodeURIComponent(value),
  Buffer.from(value).toString('base64').replace(/=+$/, ''),
  Buffer.from(value).toString('base64url'),
  Buffer.from(value).toString('hex'),
];
const expectNone = (text: string, ...values: string[]) => {
  for (const value of values) for (const encoded of encodings(value)) expect(text).not.toContain(encoded);
};

/** A tiny base64 encoder for formula code (the sandbox has no Buffer or btoa). */
const BASE64 = `const b64 = (s, url) => { const a = url ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const b = unescape(encodeURIComponent(s)); let o = '';
  for (let i = 0; i < b.length; i += 3) { const n = (b.charCodeAt(i) << 16) | ((b.charCodeAt(i + 1) || 0) << 8) | (b.charCodeAt(i + 2) || 0);
    o += a[n >> 18] + a[(n >> 12) & 63] + (i + 1 < b.length ? a[(n >> 6) & 63] : '') + (i + 2 < b.length ? a[n & 63] : ''); }
  return o; };`;

describe('what flows back from a reactor', () => {
  let test: TestApp;
  let echo: LocalHttpServer;
  let slow: LocalHttpServer;
  let useOnly: string; // token:use on /, mask: cannot read any token
  let masker: string; // token:use, and token:read with a mask rule
  let revealer: string;
  let revealerId: string;
  let cards: { card1: string; card2: string; ssn: string };
  const as = (key: string) => asKey(test, key);
  const admin = () => as(BOOTSTRAP_KEY);
  const react = (id: string, args: unknown, key = useOnly) => as(key).post(`/reactors/${id}/react`, { args });

  const privateReactor = async (code: string, configuration: Record<string, string> = {}, application?: string) => {
    const formula = await admin().post('/reactor-formulas', {
      name: `echo ${Math.random()}`,
      type: 'private',
      code,
      configuration: Object.keys(configuration).map((name) => ({ name, type: 'string' })),
      request_parameters: [],
    });
    if (formula.status !== 201) throw new Error(`formula: ${formula.status} ${formula.text}`);
    const reactor = await admin().post('/reactors', { name: 'echo', formula: { id: formula.body.id }, configuration, ...(application ? { application: { id: application } } : {}) });
    if (reactor.status !== 201) throw new Error(`reactor: ${reactor.status} ${reactor.text}`);
    return reactor.body.id as string;
  };

  beforeAll(async () => {
    echo = await startLocalHttpServer((request, response) => {
      response.setHeader('content-type', 'application/json');
      response.setHeader('x-echo', encodeURIComponent(request.body));
      response.end(JSON.stringify({ echo: JSON.parse(request.body || 'null'), text: request.body, b64: Buffer.from(request.body).toString('base64') }));
    });
    slow = await startLocalHttpServer(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      response.end('done');
    });
    test = await startTestApp({ VAULT_REACTOR_ALLOWED_HOSTS: `${echo.host},${slow.host}`, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    await test.app.get(VaultBus).execute(new ImportOfficialFormulaCommand(FORWARD_CARD, { type: 'operator', id: 'cli' }, 'import'));
    const ALL = ['token:create', 'token:read', 'token:use'];
    const revealerApp = await createApplication(test, { name: 'revealer', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] });
    revealer = revealerApp.key;
    revealerId = revealerApp.id;
    useOnly = (await createApplication(test, { name: 'use only', type: 'private', permissions: ['token:use'], rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:use'] }] })).key;
    masker = (await createApplication(test, { name: 'masker', type: 'private', permissions: ['token:use', 'token:read'], rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:use', 'token:read'] }] })).key;
    const token = async (type: string, data: string) => (await as(revealer).post('/tokens', { type, data })).body.id as string;
    cards = { card1: await token('card_number', CARD1), card2: await token('card_number', CARD2), ssn: await token('social_security_number', SSN) };
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
    await slow?.close();
  });

  describe('Forward Card with an echoing endpoint', () => {
    let forward: string;
    beforeAll(async () => {
      const created = await admin().post('/reactors', { name: 'fwd', formula: { id: FORWARD_CARD.id }, configuration: { endpoint: echo.url('/charge'), api_key: 'sk_test_Zq9hidden' } });
      forward = created.body.id;
    });

    it('never hands back another token passed as currency: the formula refuses it, and says nothing of it', async () => {
      const response = await react(forward, { card_number: `{{ ${cards.card1} }}`, currency: `{{ ${cards.card2} }}` });
      expect(response.status).toBe(422);
      expect(response.body.errors.reactor[0]).toMatch(/args\.currency must be a three-letter/);
      expectNone(response.text, CARD1, CARD2);
    });

    it('sends only what it declares: an undeclared arg holding a token never reaches the endpoint nor comes back', async () => {
      const before = echo.received.length;
      const response = await react(forward, { card_number: `{{ ${cards.card1} }}`, amount: 1299, currency: 'usd', expiration: { x: `{{ ${cards.ssn} }}` } });
      expect(response.status).toBe(200);
      const sent = echo.received.slice(before);
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0].body)).toEqual({ card_number: CARD1, amount: 1299, currency: 'USD' });
      expect(response.body.raw).toMatchObject({ status: 200, ok: true, card_last4: '4242' });
      expect(response.body.raw.response.echo).toEqual({ card_number: '[redacted]', amount: 1299, currency: 'USD' });
      expectNone(response.text, CARD1, SSN, 'sk_test_Zq9hidden');
    });
  });

  describe('a formula that hands its args back in every encoding', () => {
    const echoAll = `${BASE64}
      module.exports = async ({ args }) => {
        const out = {}; const keys = {};
        for (const [name, v] of Object.entries(args)) {
          const s = String(v);
          out[name] = { as_is: v, upper: s.toUpperCase(), json: JSON.stringify({ v }), url: encodeURIComponent('q=' + s), b64: b64(s), b64url: b64(s, true),
            b64_embedded: 'x' + b64('pre:' + s + ':post'), bare: s.replace(/[^0-9A-Za-z]/g, ''), spaced: s.split('').join(' '),
            hex: Array.from(s).map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join(''), number: Number(s.replace(/-/g, '')) || 0 };
          keys[s] = name; keys['k-' + b64(s)] = name;
        }
        return { raw: { out, keys } };
      };`;

    it("replaces every one by the caller's own view (the mask), and records each replacement", async () => {
      const id = await privateReactor(echoAll);
      const response = await react(id, { a: `{{ ${cards.card1} }}`, b: `{{ ${cards.ssn} }}`, c: 'not a token' }, masker);
      expect(response.status).toBe(200);
      expectNone(response.text, CARD1, SSN);
      expect(response.body.raw.out.a.as_is).toBe('XXXXXXXXXXXX4242');
      expect(response.body.raw.out.b.as_is).toBe('XXX-XX-1120');
      expect(response.body.raw.out.b.b64).toBe(Buffer.from('XXX-XX-1120').toString('base64').replace(/=+$/, ''));
      expect(response.body.raw.out.c.as_is).toBe('not a token');
      expect(response.body.raw.keys).toHaveProperty(['XXXXXXXXXXXX4242']);

      const logs = await admin().get(`/logs?entity_id=${cards.card1}`);
      expect(logs.body.data.map((entry: { message: string }) => entry.message)).toContain(`Token data withheld from the answer of reactor ${id}`);
    });

    it('replaces values an endpoint echoes, in its body and its headers, passed on by the code', async () => {
      const id = await privateReactor(
        `module.exports = async ({ args, configuration }) => {
          const r = await fetch(configuration.url, { method: 'POST', body: JSON.stringify(args) });
          return { raw: { body: await r.text(), header: r.headers.get('x-echo') } };
        };`,
        { url: echo.url('/echo') },
      );
      const response = await react(id, { card: `{{ ${cards.card2} }}`, nested: { ssn: `{{ ${cards.ssn} }}` } });
      expect(response.status).toBe(200);
      expectNone(response.text, CARD2, SSN);
      // A caller with no token:read rule is shown nothing of the token: [redacted].
      expect(response.body.raw.header).toContain('%22card%22%3A%22[redacted]%22');
    });

    it("shows a caller whose token:read rule reveals the token its data, untouched", async () => {
      const id = await privateReactor(echoAll);
      const response = await react(id, { a: `{{ ${cards.card1} }}` }, revealer);
      expect(response.status).toBe(200);
      expect(response.body.raw.out.a.as_is).toBe(CARD1);
    });

    it('takes the values out of an error the code throws in any encoding', async () => {
      const id = await privateReactor(`${BASE64} module.exports = async ({ args }) => { throw new Error('bad ' + b64(args.a) + ' ' + encodeURIComponent(JSON.stringify(args))); };`);
      const response = await react(id, { a: `{{ ${cards.ssn} }}` });
      expect(response.status).toBe(422);
      expectNone(response.text, SSN);
    });

    it('takes them out of the metadata and containers of the tokens the code makes', async () => {
      const id = await privateReactor(
        `module.exports = async ({ args }) => ({ tokenize: { t: { type: 'token', data: 'x', metadata: { leak: args.a }, containers: ['/c' + args.a.replace(/-/g, '') + '/'] } } });`,
        {},
        revealerId,
      );
      // The revealer may see the SSN: its view is reveal, so nothing is replaced for it.
      const revealed = await react(id, { a: `{{ ${cards.ssn} }}` }, revealer);
      expect(revealed.status).toBe(200);
      expect(revealed.body.tokens.t.metadata).toEqual({ leak: SSN });
      const masked = await react(id, { a: `{{ ${cards.ssn} }}` }, masker);
      expect(masked.status).toBe(200);
      expect(masked.body.tokens[0].metadata).toEqual({ leak: 'XXX-XX-1120' });
      expectNone(masked.text, SSN);
      const unseen = await react(id, { a: `{{ ${cards.ssn} }}` });
      expect(unseen.body.tokens[0].metadata).toEqual({ leak: '[redacted]' });
      expectNone(unseen.text, SSN);
    });
  });

  describe('revocation is immediate for applications', () => {
    const slowReactor = async () =>
      privateReactor(
        `module.exports = async ({ args, configuration }) => { await fetch(configuration.url); return { raw: { got: args.a } }; };`,
        { url: slow.url('/wait') },
      );
    const revocable = async () =>
      createApplication(test, { name: 'revocable', type: 'private', permissions: ['token:use'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:use'] }] });
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it.each([
      ['deleted', (id: string) => admin().delete(`/applications/${id}`), 204],
      ['regenerated', (id: string) => admin().post(`/applications/${id}/regenerate`), 200],
    ] as const)('a request in flight when its application is %s answers 401', async (_what, revoke, status) => {
      const id = await slowReactor();
      const app = await revocable();
      const inFlight = react(id, { a: `{{ ${cards.card1} }}` }, app.key).then((response) => response);
      await sleep(800);
      expect((await revoke(app.id)).status).toBe(status);
      const response = await inFlight;
      expect(response.status).toBe(401);
      expectNone(response.text, CARD1);
    });

    it('an application regenerating or deleting its own key gets its answer', async () => {
      const manager = await createApplication(test, { name: 'self', type: 'management', permissions: ['application:update', 'application:delete'] });
      const regenerated = await as(manager.key).post(`/applications/${manager.id}/regenerate`);
      expect(regenerated.status).toBe(200);
      expect(regenerated.body.key).toEqual(expect.any(String));
      expect((await as(regenerated.body.key).delete(`/applications/${manager.id}`)).status).toBe(204);
    });
  });

  describe("a reactor's hidden configuration stays where it was put", () => {
    let reactor: string;
    let updateOnly: string;
    beforeAll(async () => {
      reactor = (await admin().post('/reactors', { name: 'fwd', formula: { id: FORWARD_CARD.id }, configuration: { endpoint: echo.url('/charge'), api_key: 'sk_live_Zq9keep' } })).body.id;
      updateOnly = (await createApplication(test, { name: 'update only', type: 'management', permissions: ['reactor:update'] })).key;
    });

    it('a change of some settings that keeps the others needs reactor:read: 403 naming configuration', async () => {
      const response = await as(updateOnly).patch(`/reactors/${reactor}`, { configuration: { endpoint: `${echo.url('/steal')}` } });
      expect(response.status).toBe(403);
      expect(Object.keys(response.body.errors)).toEqual(['configuration']);
      // Nothing changed: the next legitimate react still goes to /charge.
      const before = echo.received.length;
      await react(reactor, { card_number: `{{ ${cards.card1} }}` });
      expect(echo.received.slice(before).map((r) => r.path)).toEqual(['/charge']);
    });

    it('giving every setting anew, or changing no setting, needs no reactor:read', async () => {
      expect((await as(updateOnly).patch(`/reactors/${reactor}`, { name: 'renamed' })).status).toBe(200);
      expect((await as(updateOnly).patch(`/reactors/${reactor}`, { configuration: { endpoint: echo.url('/charge'), api_key: 'sk_new_Zq9' } })).status).toBe(200);
      expect((await as(updateOnly).put(`/reactors/${reactor}`, { name: 'fwd', configuration: { endpoint: echo.url('/charge'), api_key: 'sk_new_Zq9' } })).status).toBe(200);
    });

    it('a holder of reactor:read may change one setting and keep the rest', async () => {
      expect((await admin().patch(`/reactors/${reactor}`, { configuration: { endpoint: echo.url('/other') } })).status).toBe(200);
    });
  });
});
