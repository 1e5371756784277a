// Once a finding, now a regression test: a failing proxy transform's message goes through the configuration redaction (runs of 8+ characters of a
// configuration value) and then through what flows back, which looks for whole detokenized values only. V8 quotes a
// ten-character window of the text JSON.parse fails on, and the caller places that window: a response code transform
// that parses the destination's text answer (an ordinary thing to write), an echoing destination, and two requests
// give a use-only caller the first and the last characters of a token it may only see redacted. Reactor errors
// redact such runs of the detokenized args; proxy transform errors do not.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, type TestApp } from '../../support/test-app';

const PARSE_ANSWER = "module.exports = async ({ args }) => ({ body: typeof args.body === 'string' ? JSON.parse(args.body) : args.body });";

describe('proxy attack: a transform error message quotes part of the detokenized data', () => {
  let test: TestApp;
  let echo: LocalHttpServer;

  beforeAll(async () => {
    echo = await startLocalHttpServer((req, res) => {
      res.setHeader('content-type', 'text/plain');
      res.end(req.body);
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  it('never answers 8 or more characters of a token the caller may not read', async () => {
    const data = 'Zebra-Quartz-Mango-77';
    const owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    const caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'redact', permissions: ['token:read', 'token:use'] }],
    });
    const id = (await asKey(test, owner.key).post('/tokens', { type: 'token', data })).body.id as string;
    const proxy = await asKey(test, BOOTSTRAP_KEY).post('/proxies', {
      name: 'parses its answer',
      destination_url: echo.url('/'),
      response_transforms: [{ type: 'code', code: PARSE_ANSWER }],
    });
    expect(proxy.status).toBe(201);

    const messages: string[] = [];
    // The window at the start of the text, and the one before an error placed right after the value.
    for (const body of [`[{{ ${id} }},x]`, `["{{ ${id} }}",x]`]) {
      const answer = await test
        .http()
        .post('/proxy')
        .set('SVC-API-KEY', caller.key)
        .set('SVC-PROXY-KEY', proxy.body.key)
        .set('content-type', 'text/plain')
        .send(body);
      messages.push(answer.text);
    }
    const leaked = (text: string) => {
      for (let i = 0; i + 8 <= data.length; i++) if (text.includes(data.slice(i, i + 8))) return data.slice(i, i + 8);
      return null;
    };
    // Observed while the bug exists: `Unexpected token 'Z', "[Zebra-Quar"... is not valid JSON` and
    // `Unexpected token 'x', ..."Mango-77",x]" is not valid JSON`: 16 of the 21 characters.
    expect(messages.map(leaked)).toEqual([null, null]);
  });
});
