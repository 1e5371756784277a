// A detokenization expression whose filter is unknown is a 400 naming its path, and the message must not quote what
// the caller wrote, as a token's own expressions already do not ("mask is not a valid expression: an unknown filter").
// Found by the hostile-input fuzzer: POST /detokenize and a reactor's args answered "The filters of a detokenization
// expression do not parse: undefined filter: <the caller's text>, line:1, col:1".
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
/** What the caller wrote where a filter name belongs: text in the canary alphabet, found nowhere else. */
const WRITTEN = 'Zq9GKbHTrM4Q';
const CARD_FORMULA = {
  name: 'card user',
  type: 'private',
  code: 'module.exports = async () => ({ raw: { ok: true } });',
  configuration: [],
  request_parameters: [{ name: 'card.number', type: 'string' }],
};

describe('an unknown filter in a detokenization expression is not quoted back', () => {
  let test: TestApp;
  let key: string;
  let token: string;
  let reactor: string;

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    key = (await createApplication(test, { name: 'owner', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] })).key;
    const created = await asKey(test, key).post('/tokens', { type: 'token', data: 'abcd1234' });
    expect(created.status).toBe(201);
    token = created.body.id;
    const formula = await asKey(test, BOOTSTRAP_KEY).post('/reactor-formulas', CARD_FORMULA);
    expect(formula.status).toBe(201);
    const made = await asKey(test, BOOTSTRAP_KEY).post('/reactors', { name: 'card user', formula: { id: formula.body.id }, configuration: {} });
    expect(made.status).toBe(201);
    reactor = made.body.id;
  });
  afterAll(() => test?.close());

  it('a token expression with that filter: 400, not quoted (the behaviour to match)', async () => {
    const response = await asKey(test, key).post('/tokens', { type: 'token', data: 'x', mask: `{{ data | ${WRITTEN} }}` });
    expect(response.status).toBe(400);
    expect(response.body.errors.mask).toBeDefined();
    expect(response.text).not.toContain(WRITTEN);
  });

  it('POST /detokenize: 400 naming the path, not quoting the filter', async () => {
    const response = await asKey(test, key).post('/detokenize', { card: { number: `{{ ${token} | ${WRITTEN} }}` } });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toEqual(['card.number']);
    expect(response.text).not.toContain(WRITTEN);
  });

  it("a reactor's args: 400 naming the path, not quoting the filter", async () => {
    const response = await asKey(test, key).post(`/reactors/${reactor}/react`, { args: { card: { number: `{{ ${token} | ${WRITTEN}: 1 }}` } } });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body.errors)).toEqual(['args.card.number']);
    expect(response.text).not.toContain(WRITTEN);
  });
});
