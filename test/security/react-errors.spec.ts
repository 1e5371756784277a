// errors.reactor over HTTP ("Errors": no error body holds token data; "Reactors" step 5): the message of a failed
// run goes to a caller who may use a token's data without seeing it and may not read the reactor's configuration, so
// neither the data, the configuration's secrets nor the host the configuration points at comes back in it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ImportOfficialFormulaCommand } from '@vault/application';
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import { VaultBus } from '@vault/nest';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const SSN = '123-45-6789';
const CARD = '4242424242424242';
const SECRET = 'sk_live_Zq9TRXBKMW4hPLDH';
const FORWARD_CARD = JSON.parse(readFileSync(join(__dirname, '..', '..', 'formulas', 'official', 'forward-card.json'), 'utf8'));

/** A port on 127.0.0.1 that nothing listens on. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

describe('errors.reactor of POST /reactors/{id}/react', () => {
  let test: TestApp;
  let notAllowed: LocalHttpServer;
  let refusingPort: number;
  /** token:use under a rule that redacts every token, and no reactor:read: it may use data it never sees. */
  let caller: string;
  /** Creates the tokens. */
  let writer: string;
  const as = (key: string) => asKey(test, key);
  /** A private reactor with configuration `{ k: SECRET }`; `code` is the whole module. */
  const reactorOf = async (code: string) => {
    const formula = await as(BOOTSTRAP_KEY).post('/reactor-formulas', {
      name: `Formula ${randomUUID()}`,
      type: 'private',
      code,
      configuration: [{ name: 'k', description: 'Upstream key', type: 'string' }],
      request_parameters: [],
    });
    if (formula.status !== 201) throw new Error(`create formula: ${formula.status} ${JSON.stringify(formula.body)}`);
    return createReactor(formula.body.id, { k: SECRET });
  };
  const createReactor = async (formulaId: string, configuration: Record<string, unknown>) => {
    const reactor = await as(BOOTSTRAP_KEY).post('/reactors', { name: 'Reactor', formula: { id: formulaId }, configuration });
    if (reactor.status !== 201) throw new Error(`create reactor: ${reactor.status} ${JSON.stringify(reactor.body)}`);
    return reactor.body.id as string;
  };
  const tokenOf = async (type: string, data: unknown) => {
    const token = await as(writer).post('/tokens', { type, data });
    if (token.status !== 201) throw new Error(`create token: ${token.status} ${JSON.stringify(token.body)}`);
    return token.body.id as string;
  };
  /** The one message of a 422. */
  const failure = async (id: string, args: unknown): Promise<string> => {
    const response = await as(caller).post(`/reactors/${id}/react`, { args });
    expect(response.status).toBe(422);
    expect(response.body.errors.reactor).toEqual([expect.any(String)]);
    return response.body.errors.reactor[0];
  };

  beforeAll(async () => {
    notAllowed = await startLocalHttpServer((_request, response) => {
      response.end('should never be reached');
    });
    refusingPort = await closedPort();
    test = await startTestApp({ VAULT_REACTOR_ALLOWED_HOSTS: `127.0.0.1:${refusingPort}`, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    await test.app.get(VaultBus).execute(new ImportOfficialFormulaCommand(FORWARD_CARD, { type: 'operator', id: 'cli' }, 'import'));
    caller = (
      await createApplication(test, {
        name: 'user',
        type: 'private',
        permissions: ['token:use'],
        rules: [{ priority: 1, container: '/', transform: 'redact', permissions: ['token:use'] }],
      })
    ).key;
    writer = (
      await createApplication(test, {
        name: 'writer',
        type: 'private',
        permissions: ['token:create'],
        rules: [{ priority: 1, container: '/', transform: 'redact', permissions: ['token:create'] }],
      })
    ).key;
  });
  afterAll(async () => {
    await test?.close();
    await notAllowed?.close();
  });

  it("holds no token data that V8's own message quotes", async () => {
    const ssn = await tokenOf('social_security_number', SSN);
    const id = await reactorOf('module.exports = async ({ args }) => ({ raw: { n: String(BigInt(args.x)) } });');
    const message = await failure(id, { x: `{{ ${ssn} }}` });
    expect(message).toMatch(/SyntaxError: Cannot convert \[redacted\] to a BigInt/);
    expect(message).not.toContain(SSN);
  });

  it.each<[string, string, unknown, RegExp]>([
    ['a card number and a configuration secret', 'throw new Error("bad: " + args.x + " cfg=" + configuration.k);', CARD, /bad: \[redacted\] cfg=\[redacted\]/],
    ['the args as JSON', 'throw new Error("bad args " + JSON.stringify(args) + " " + JSON.stringify(configuration));', 'Jo "J" 4242424242424242', /bad args \{"x":\[redacted\]\} \{"k":\[redacted\]\}/],
    ['a number', 'throw new Error("amount " + args.x.amount + " for " + args.x.card);', { amount: 987654, card: CARD }, /amount \[redacted\] for \[redacted\]/],
  ])('holds neither the token data nor the configuration a thrown message quotes: %s', async (_title, body, data, expected) => {
    const token = await tokenOf('token', data);
    const id = await reactorOf(`module.exports = async ({ args, configuration }) => { ${body} };`);
    const message = await failure(id, { x: `{{ ${token} }}` });
    expect(message).toMatch(expected);
    expect(message).not.toContain(CARD);
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain('987654');
  });

  it.each<[string, string, unknown, RegExp]>([
    ["V8's JSON.parse excerpt of the data", 'JSON.parse(args.x);', 'hunter2-password-of-alice', /Unexpected token 'h', "?\[redacted\]"\.\.\. is not valid JSON/],
    ['the data in upper case', 'throw new Error("bad " + args.x.toUpperCase());', 'hunter2-password-of-alice', /bad \[redacted\]/],
    ["a key of an object token", 'throw new Error("unknown field " + Object.keys(args.x)[0]);', { alice_ssn_field: 1 }, /unknown field \[redacted\]/],
    ['the configuration in lower case', 'throw new Error("cfg " + configuration.k.toLowerCase());', 'x', /cfg \[redacted\]/],
  ])('holds no run of eight characters of the data or configuration: %s', async (_title, body, data, expected) => {
    const token = await tokenOf('token', data);
    const id = await reactorOf(`module.exports = async ({ args, configuration }) => { ${body} };`);
    const message = await failure(id, { x: `{{ ${token} }}` });
    expect(message).toMatch(expected);
    expect(message.toLowerCase()).not.toMatch(/hunter2-p|alice_ss|sk_live_z/);
  });

  it('still says what went wrong when the message holds no secret', async () => {
    const card = await tokenOf('card_number', CARD);
    const id = await reactorOf(`module.exports = async ({ args }) => { if (args.card !== '') throw new Error('amount must be positive'); };`);
    expect(await failure(id, { card: `{{ ${card} }}`, amount: -5 })).toMatch(/^The formula threw: Error: amount must be positive/);
  });

  describe('Forward Card, for a caller without reactor:read', () => {
    const args = async () => ({ card_number: `{{ ${await tokenOf('card_number', CARD)} }}` });

    it('may not read the configured endpoint', async () => {
      const id = await createReactor(FORWARD_CARD.id, { endpoint: notAllowed.url('/charges'), api_key: SECRET });
      expect((await as(caller).get(`/reactors/${id}`)).status).toBe(403);
    });

    it.each<[string, () => string, RegExp]>([
      ['on a host that is not allowed', () => notAllowed.url('/charges?key=x'), /fetch refused: the host is not in VAULT_REACTOR_ALLOWED_HOSTS\./],
      ['on an allowed host that refuses the connection', () => `http://127.0.0.1:${refusingPort}/charges`, /fetch failed \(ECONNREFUSED\)\./],
    ])('is not told the endpoint %s', async (_title, endpoint, expected) => {
      const before = notAllowed.received.length;
      const id = await createReactor(FORWARD_CARD.id, { endpoint: endpoint(), api_key: SECRET });
      const message = await failure(id, await args());
      expect(message).toMatch(expected);
      expect(message).not.toMatch(/127\.0\.0\.1|charges/);
      expect(message).not.toContain(String(refusingPort));
      expect(message).not.toContain(notAllowed.host.split(':')[1]);
      expect(notAllowed.received.length).toBe(before);
    });
  });

  describe('args that detokenize to very many values (tokens of 64 KiB arrays)', () => {
    /** A token whose data is an array of 9,000 distinct short strings: 9,001 values, under 65,536 characters of JSON. */
    const wideToken = (seed: number) => tokenOf('token', Array.from({ length: 9_000 }, (_, i) => (seed * 9_000 + i).toString(36).padStart(4, '0')));

    it('refuses more than 100,000 values once detokenized with a 400 on args, before any code runs', async () => {
      const id = await reactorOf('module.exports = async () => ({ raw: { ran: true } });');
      const ids = await Promise.all(Array.from({ length: 12 }, (_, i) => wideToken(i)));
      const response = await as(caller).post(`/reactors/${id}/react`, { args: Object.fromEntries(ids.map((token, i) => [`t${i}`, `{{ ${token} }}`])) });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual({ args: ['args must hold at most 100000 values once detokenized.'] });
    });

    it('withholds the message of a failed run whose args hold more than 10,000 values, instead of redacting it at length', async () => {
      const id = await reactorOf('module.exports = async (req) => { throw new Error("echo " + JSON.stringify(req.args).slice(0, 400)); };');
      const ids = await Promise.all([wideToken(100), wideToken(101)]);
      const message = await failure(id, { a: `{{ ${ids[0]} }}`, b: `{{ ${ids[1]} }}` });
      expect(message).toBe('The reactor failed; its message is withheld: its args hold too many values to take them out of it.');
    });
  });
});
