// Once a finding, now a regression test: what flows back checks a JSON answer as JSON.parse reads it, and when nothing was replaced in that reading
// it sends the destination's original bytes. Those bytes can hold what the parsed value does not: a number beyond
// 2^53 (parsed to a neighbour, so its text is not the token's) or a duplicated key (parsed to its last value). A
// use-only caller splices a token into its body unquoted (the vault forwards the whole data as text), an ordinary echo
// answers the body back as JSON, and the caller reads the plaintext of a card it may only see masked.
//
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

describe('proxy attack: a JSON answer is checked as parsed but sent as received', () => {
  let test: TestApp;
  let echo: LocalHttpServer;
  let caller: { key: string };
  let owner: { key: string };
  let proxyKey: string;

  beforeAll(async () => {
    echo = await startLocalHttpServer((req, res) => {
      // `/same`: the body back with the request's own content type. `/json`: the body back as application/json.
      res.setHeader('content-type', req.path.startsWith('/json') ? 'application/json' : String(req.headers['content-type']));
      res.end(req.body);
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:read', 'token:use'] }],
    });
    proxyKey = (await asKey(test, BOOTSTRAP_KEY).post('/proxies', { name: 'echo', destination_url: echo.url('/') })).body.key;
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  const cardOf = async (data: string) => {
    const created = await asKey(test, owner.key).post('/tokens', { type: 'card_number', data });
    expect(created.status).toBe(201);
    const shown = await asKey(test, caller.key).get(`/tokens/${created.body.id}`);
    expect(shown.body.data).not.toBe(data); // the caller sees the mask only
    return created.body.id as string;
  };
  // The answer read as text whatever its content type: once values are replaced it need not parse.
  const invoke = (path: string, contentType: string, body: string) =>
    test
      .http()
      .post(`/proxy${path}`)
      .set('SVC-API-KEY', caller.key)
      .set('SVC-PROXY-KEY', proxyKey)
      .set('content-type', contentType)
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      })
      .send(body)
      .then((res) => Object.assign(res, { text: res.body as string }));

  it('a 19-digit card spliced as a JSON number, echoed with the request content type', async () => {
    const data = '6011000990139424009';
    const id = await cardOf(data);
    // Not JSON before detokenization (so read as text, the whole data put in), JSON after: `{"n": 6011000990139424009}`.
    const answer = await invoke('/same', 'application/json', `{"n": {{ ${id} }}}`);
    // A fix may withhold the answer (the vault's own problem): then nothing flowed back.
    if (answer.headers['svc-proxy-error'] === 'true') return;
    expect(answer.text).not.toContain(data);
  });

  it('a card in a duplicated key, echoed as application/json', async () => {
    const data = '4111111111111111';
    const id = await cardOf(data);
    const answer = await invoke('/json', 'text/plain', `{"card":"{{ ${id} }}","card":"x"}`);
    // A fix may withhold the answer (the vault's own problem): then nothing flowed back.
    if (answer.headers['svc-proxy-error'] === 'true') return;
    expect(answer.text).not.toContain(data);
  });
});
