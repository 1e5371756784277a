// A reactor's `tokenize` is tokenized exactly as POST /tokenize: a token request whose data is an object (any JSON
// value is `token` data) is created there, and must be here too. Found by the leak property (a formula tokenizing an
// object token it was given): the reactor answered 422 "data must be a JSON value." for data POST /tokenize accepts.
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const ALL = ['token:create', 'token:read', 'token:update', 'token:delete', 'token:search', 'token:use'];
const REQUEST = { type: 'token', data: { k: 'object-data', n: 1 }, containers: ['/general/'] };

describe("a reactor's tokenize takes what POST /tokenize takes", () => {
  let test: TestApp;
  let key: string;
  let reactor: string;

  beforeAll(async () => {
    test = await startTestApp({ VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    key = (await createApplication(test, { name: 'owner', type: 'private', permissions: ALL, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }] })).key;
    const code = `module.exports = async () => ({ raw: {}, tokenize: { a: ${JSON.stringify(REQUEST)} } });`;
    const formula = await asKey(test, BOOTSTRAP_KEY).post('/reactor-formulas', { name: 'object tokenizer', type: 'private', code, configuration: [], request_parameters: [] });
    expect(formula.status).toBe(201);
    const created = await asKey(test, BOOTSTRAP_KEY).post('/reactors', { name: 'object tokenizer', formula: { id: formula.body.id }, configuration: {} });
    expect(created.status).toBe(201);
    reactor = created.body.id;
  });
  afterAll(() => test?.close());

  it('POST /tokenize creates a token whose data is an object', async () => {
    const response = await asKey(test, key).post('/tokenize', { a: REQUEST });
    expect(response.status).toBe(201);
    expect(response.body.a.data).toEqual(REQUEST.data);
  });

  it('so does a reactor whose result tokenizes the same request', async () => {
    const response = await asKey(test, key).post(`/reactors/${reactor}/react`, { args: {} });
    expect(response.text).not.toContain('data must be a JSON value');
    expect(response.status).toBe(200);
    expect(response.body.tokens.a).toMatchObject({ type: 'token', data: REQUEST.data, containers: ['/general/'] });
  });
});
