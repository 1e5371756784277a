// What the extended leak property and hostile-input fuzzer found through ANY /proxy, fixed and kept: base64 that an
// echoing destination wraps in MIME lines is found across its breaks, and an array token put whole into a header
// reaches the destination whole.
import { startLocalHttpServer, type LocalHttpServer } from '../support/local-http-server';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** How the destination writes back the value of the X-Value header it got; the path's last segment picks one. */
const ENCODINGS: Record<string, (value: string) => string> = {
  hex_of_value_without_dashes: (v) => hex(v.replace(/-/g, '')),
  hex_of_base64: (v) => hex(b64(v)),
  hex_of_url_encoding: (v) => hex(encodeURIComponent(v)),
  letters_and_digits_only: (v) => v.replace(/[^A-Za-z0-9]/g, ''),
  base64_in_mime_lines: (v) => b64(`prefix:${v}`).replace(/(.{8})(?=.)/g, '$1\r\n'),
};

describe('ANY /proxy: reproductions', () => {
  let test: TestApp;
  let echo: LocalHttpServer;
  let owner: string;
  let user: string;

  beforeAll(async () => {
    echo = await startLocalHttpServer((request, response) => {
      const encoding = request.path.split('/').pop()!.split('?')[0];
      const value = String(request.headers['x-value'] ?? '');
      response.setHeader('content-type', 'text/plain');
      response.end(encoding in ENCODINGS ? ENCODINGS[encoding](value) : JSON.stringify(request.headers));
    });
    test = await startTestApp({ VAULT_PROXY_ALLOWED_HOSTS: echo.host, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
    const all = ['token:create', 'token:read'];
    owner = (await createApplication(test, { name: 'owner', type: 'private', permissions: all, rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: all }] }, BOOTSTRAP_KEY)).key;
    // Uses every token; reads them masked (a token without a mask: nothing).
    user = (
      await createApplication(
        test,
        { name: 'user', type: 'private', permissions: ['token:use', 'token:read'], rules: [{ priority: 1, container: '/', transform: 'mask', permissions: ['token:use', 'token:read'] }] },
        BOOTSTRAP_KEY,
      )
    ).key;
  });
  afterAll(async () => {
    await test?.close();
    await echo?.close();
  });

  const token = async (type: string, data: unknown) => {
    const created = await asKey(test, owner).post('/tokens', { type, data });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };
  const invoke = (encoding: string, value: string) =>
    test.http().get(`/proxy/${encoding}`).set('SVC-API-KEY', user).set('SVC-PROXY-URL', echo.url('/e')).set('X-Value', value);

  it('a destination answering in base64 broken into lines hands back the card number', async () => {
    const id = await token('card_number', '4111111111111111');
    const answer = await invoke('base64_in_mime_lines', `{{ ${id} }}`);
    expect(answer.status).toBe(200);
    const decoded = Buffer.from(answer.text.replace(/\s+/g, ''), 'base64').toString('latin1');
    expect(decoded).not.toContain('4111111111111111');
  });

  it('an array token put into a header whole reaches the destination whole (not as its first element)', async () => {
    const id = await token('token', ['first-leaf', 'second-leaf']);
    const answer = await test.http().get('/proxy/headers').set('SVC-API-KEY', user).set('SVC-PROXY-URL', echo.url('/e')).set('X-Value', `{{ ${id} }}`);
    expect(answer.status).toBe(200);
    // The user's rule masks the token, so what comes back is withheld; what the destination got is what counts.
    const got = echo.received[echo.received.length - 1].headers['x-value'];
    expect(got).toBe(JSON.stringify(['first-leaf', 'second-leaf']));
  });
});
