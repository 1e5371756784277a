// Attacks on proxies that held in a black-box review, kept as regressions: other tenants, anonymous callers, paths
// and destinations that try to leave the allow-list, the 400 that must not tell a missing token from one no rule
// covers, proxy:update without proxy:read, what flows back in the usual encodings, CRLF in token data, deletion, and
// secrets at rest. The findings of the same review have their own specs in proxy-attacks/.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { scanStored } from '../support/data-dir';
import { asKey, BOOTSTRAP_KEY, createApplication, createTenant, startTestApp, type TestApp } from '../support/test-app';

interface Got {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const CARD = '4111111111111111';
const SECRET = 'Zebra-Quartz-Mango-77';
const CONFIG_VALUE = 'sk_live_AttackRegression_4242';
const b64 = (text: string) => Buffer.from(text).toString('base64');

/** The destination: `/echo` answers JSON of what it got, `/enc?e=<encoding>` the body in that encoding, `/hdr` the
 * request's headers as `x-h-<name>`, `/redirect` a Location holding the body, `/bomb` a gzip bomb, `/hang` nothing. */
const startDestination = async () => {
  const received: Got[] = [];
  const encodings: Record<string, (v: string) => string> = {
    upper: (v) => v.toUpperCase(),
    json: (v) => JSON.stringify({ v: [v] }),
    unicode: (v) => [...v].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    url: (v) => [...v].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
    html: (v) => [...v].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join(''),
    hex: (v) => Buffer.from(v).toString('hex').toUpperCase(),
    base64: (v) => b64(v),
    base64url: (v) => Buffer.from(v).toString('base64url'),
    nested: (v) => b64(`{"card":"${v}"}`),
    b64b64: (v) => b64(b64(v)),
    spaced: (v) => v.replace(/(.{4})/g, '$1 '),
    undelimited: (v) => v.replace(/-/g, ''),
    tabbed: (v) => v.split('').join('\t'),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ url: req.url ?? '', headers: req.headers, body });
      const url = new URL(req.url ?? '/', 'http://x');
      const route = url.pathname.split('/').pop();
      if (route === 'hang') return;
      if (route === 'bomb') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
        return res.end(gzipSync(Buffer.alloc(8 * 1024 * 1024)));
      }
      if (route === 'enc') {
        res.setHeader('content-type', 'text/plain');
        return res.end(`before ${encodings[url.searchParams.get('e')!](body)} after`);
      }
      if (route === 'hdr') {
        for (const [name, value] of Object.entries(req.headers)) res.setHeader(`x-h-${name}`, value!);
        return res.end('ok');
      }
      if (route === 'redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:1/next?d=${encodeURIComponent(body)}` });
        return res.end();
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ url: req.url, headers: req.headers, body }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    encodings: Object.keys(encodings),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
};

describe('proxy attacks that held', () => {
  let test: TestApp;
  let dest: Awaited<ReturnType<typeof startDestination>>;
  let owner: { id: string; key: string };
  let caller: { id: string; key: string };
  let card: string;
  let secret: string;
  let hidden: string; // a token no rule of the caller covers
  let proxy: { id: string; key: string };
  let inbound: { id: string; key: string };
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const invoke = (path: string, apiKey: string | null = caller.key, proxyKey: string | null = proxy.key) => {
    let request = test.http().post(`/proxy${path}`);
    if (apiKey !== null) request = request.set('SVC-API-KEY', apiKey);
    if (proxyKey !== null) request = request.set('SVC-PROXY-KEY', proxyKey);
    return request;
  };
  const sentSince = (count: number) => dest.received.length - count;

  beforeAll(async () => {
    dest = await startDestination();
    test = await startTestApp({
      VAULT_PROXY_ALLOWED_HOSTS: dest.host,
      VAULT_PROXY_TIMEOUT_MS: '1500',
      VAULT_RATE_LIMIT_PER_SECOND: '100000',
      VAULT_PROXY_ANONYMOUS_RATE_PER_SECOND: '2',
    });
    owner = await createApplication(test, {
      name: 'owner',
      type: 'private',
      rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }],
    });
    caller = await createApplication(test, {
      name: 'use-only',
      type: 'private',
      rules: [
        { priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read', 'token:use'] },
        { priority: 2, container: '/secret/', transform: 'redact', permissions: ['token:read', 'token:use'] },
      ],
    });
    const create = async (body: Record<string, unknown>) => (await asKey(test, owner.key).post('/tokens', body)).body.id as string;
    card = await create({ type: 'card_number', data: CARD });
    secret = await create({ type: 'token', data: SECRET, containers: ['/secret/'] });
    hidden = await create({ type: 'token', data: 'hidden-value-1234', containers: ['/hr/'] });
    proxy = (await admin().post('/proxies', { name: 'echo', destination_url: dest.url('/api/'), configuration: { api_key: CONFIG_VALUE, region: 'eu' } })).body;
    inbound = (await admin().post('/proxies', { name: 'inbound', destination_url: dest.url('/in/'), require_auth: false })).body;
  });
  afterAll(async () => {
    await test?.close();
    await dest?.close();
  });

  describe('another tenant', () => {
    it("can neither invoke, read, change nor delete this tenant's proxies, nor detokenize its tokens", async () => {
      const other = await createTenant(test, 'other');
      const otherAdmin = await createApplication(test, { name: 'b-admin', type: 'management', permissions: ['proxy:create', 'proxy:read', 'proxy:update', 'proxy:delete', 'application:create'] }, other.management_key);
      const otherApp = await createApplication(test, { name: 'b', type: 'private', rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:use', 'token:read'] }] }, otherAdmin.key);
      const otherProxy = (await asKey(test, otherAdmin.key).post('/proxies', { name: 'b', destination_url: dest.url('/b/') })).body;
      expect((await invoke('/x', otherApp.key, proxy.key)).status).toBe(404);
      expect((await invoke('/x', otherApp.key, inbound.key)).status).toBe(404);
      const unknown = await invoke('/x', otherApp.key, otherProxy.key).send({ a: '{{ 6f0c5a52-7d43-4b4e-9a1e-0b8f3c1d2e4f }}' });
      const foreign = await invoke('/x', otherApp.key, otherProxy.key).send({ a: `{{ ${card} }}` });
      expect(foreign.status).toBe(400);
      expect(foreign.body).toEqual(unknown.body);
      for (const request of [
        asKey(test, otherAdmin.key).get(`/proxies/${proxy.id}`),
        asKey(test, otherAdmin.key).patch(`/proxies/${proxy.id}`, { name: 'x' }),
        asKey(test, otherAdmin.key).delete(`/proxies/${proxy.id}`),
      ]) {
        expect((await request).status).toBe(404);
      }
      expect((await asKey(test, otherAdmin.key).get(`/proxies?id=${proxy.id}`)).body.data).toEqual([]);
    });
  });

  describe('an anonymous caller', () => {
    it('gets the same 401 for a require_auth proxy key, an unknown key and an ephemeral URL', async () => {
      const required = await invoke('/x', null, proxy.key);
      const unknown = await invoke('/x', null, 'H8Yk3fQ2Lm9XwR7sTbN4vC1pJd6');
      expect(required.status).toBe(401);
      expect(required.body).toEqual(unknown.body);
      expect((await test.http().get('/proxy/x').set('SVC-PROXY-URL', dest.url('/'))).status).toBe(401);
    });

    it('never detokenizes: the expression reaches the destination as sent', async () => {
      const answer = await invoke('/echo', null, inbound.key).send({ card: `{{ ${card} }}` });
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body.body)).toEqual({ card: `{{ ${card} }}` });
    });

    it('shares one bucket per key and address, whatever X-Forwarded-For or the form of the key says', async () => {
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const request = i % 2 === 0 ? test.http().get('/proxy/hdr').set('SVC-PROXY-KEY', inbound.key) : test.http().get(`/proxy/hdr?SVC-Proxy-Key=${inbound.key}`);
        statuses.push((await request.set('X-Forwarded-For', `10.0.0.${i}`)).status);
      }
      expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(4);
    });
  });

  describe('paths and destinations', () => {
    it.each(['/../x', '/%2e%2e/x', '/%2E%2e/x', '/..%2fx', '/a/..%2f..%2fx', '/%252e%252e/x', '/%5c..%5cx', '/a%5c..%5c..%5cx', '/.%2e/x', '/%2e./x', '/x/..%252f..%252fy'])(
      '%s is a 400 naming path, and nothing is sent',
      async (path) => {
        const count = dest.received.length;
        const answer = await test.http().get(`/proxy${path}`).set('SVC-API-KEY', caller.key).set('SVC-PROXY-KEY', proxy.key);
        expect(answer.status).toBe(400);
        expect(answer.body.errors).toHaveProperty('path');
        expect(sentSince(count)).toBe(0);
      },
    );

    it('keeps an absolute URL, @ or // in the path on the destination host, under its path', async () => {
      for (const path of ['/http://127.0.0.1:1/x', '/@127.0.0.1:1/x', '//127.0.0.1:1/x']) {
        const answer = await test.http().get(`/proxy${path}`).set('SVC-API-KEY', caller.key).set('SVC-PROXY-KEY', proxy.key);
        expect(answer.status).toBe(200);
        expect(answer.body.url.startsWith('/api/')).toBe(true);
      }
    });

    it('an SVC-PROXY-URL off the allow-list is a 400 naming it, and nothing is sent', async () => {
      const port = dest.host.split(':')[1];
      const count = dest.received.length;
      for (const url of [
        'http://127.0.0.1/x',
        'http://127.0.0.1:1/x',
        `http://evil.example#@127.0.0.1:${port}/x`,
        `http://127.0.0.1:${port}@evil.example/x`,
        `http://u:p@127.0.0.1:${port}/x`,
        `ftp://127.0.0.1:${port}/x`,
        `http://[::1]:${port}/x`,
        `http://localtest.me:${port}/x`,
      ]) {
        const answer = await test.http().get('/proxy/x').set('SVC-API-KEY', caller.key).set('SVC-PROXY-URL', url);
        expect({ url, status: answer.status }).toEqual({ url, status: 400 });
        expect(answer.body.errors).toHaveProperty(['SVC-PROXY-URL']);
      }
      expect(sentSince(count)).toBe(0);
    });
  });

  describe('tokens the caller may not read', () => {
    it('answers a missing token and one no rule covers with the same 400, with or without a filter', async () => {
      for (const suffix of ['', ' | last4']) {
        const missing = await invoke('/x').send({ a: `{{ 6f0c5a52-7d43-4b4e-9a1e-0b8f3c1d2e4f${suffix} }}` });
        const uncovered = await invoke('/x').send({ a: `{{ ${hidden}${suffix} }}` });
        expect(missing.status).toBe(400);
        expect(uncovered.body).toEqual(missing.body);
      }
      expect((await invoke('/x').send({ a: `{{ ${card} | last4 }}` })).status).toBe(403);
    });

    it('refuses a token whose data holds a line break in a header, and sends nothing', async () => {
      const crlf = (await asKey(test, owner.key).post('/tokens', { type: 'token', data: 'a\r\nX-Injected: 1', containers: ['/secret/'] })).body.id;
      const count = dest.received.length;
      const answer = await invoke('/hdr').set('x-data', `{{ ${crlf} }}`).send('x');
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toHaveProperty(['headers.x-data']);
      expect(sentSince(count)).toBe(0);
    });
  });

  describe('what flows back', () => {
    const noPlaintext = (text: string) => {
      expect(text).not.toContain(CARD);
      expect(text).not.toContain(SECRET);
      expect(text.toLowerCase()).not.toContain(SECRET.toLowerCase().replace(/-/g, ''));
    };

    it.each(['upper', 'json', 'unicode', 'url', 'html', 'hex', 'base64', 'base64url', 'nested', 'b64b64', 'spaced', 'undelimited', 'tabbed'])(
      'an echo %s is replaced by the caller view',
      async (encoding) => {
        for (const id of [card, secret]) {
          const answer = await invoke(`/enc?e=${encoding}`).set('content-type', 'text/plain').send(`{{ ${id} }}`);
          expect(answer.status).toBe(200);
          expect(answer.text.startsWith('before ')).toBe(true);
          noPlaintext(answer.text);
          const decoded = Buffer.from(answer.text.replace(/^before | after$/g, ''), encoding.startsWith('base64') || encoding === 'nested' ? 'base64' : 'utf8').toString();
          noPlaintext(decoded);
        }
      },
    );

    it('in headers and a redirect Location too, and the vault headers never reach the destination', async () => {
      const echoed = await invoke('/hdr').set('x-card', `{{ ${card} }}`).set('x-secret', `Bearer {{ ${secret} }}`).send('x');
      expect(echoed.headers['x-h-x-card']).toBe('XXXXXXXXXXXX1111');
      expect(echoed.headers['x-h-x-secret']).toBe('Bearer [redacted]');
      expect(echoed.headers['x-h-svc-api-key']).toBeUndefined();
      expect(echoed.headers['x-h-svc-proxy-key']).toBeUndefined();
      const redirect = await invoke('/redirect').set('content-type', 'text/plain').send(`{{ ${secret} }}`);
      expect(redirect.status).toBe(302);
      noPlaintext(decodeURIComponent(redirect.headers.location));
    });

    it("withholds the proxy's configuration values echoed to any caller", async () => {
      const answer = await test.http().post('/proxy/echo').set('SVC-API-KEY', caller.key).set('SVC-PROXY-KEY', proxy.key).set('content-type', 'text/plain').send(`x ${CONFIG_VALUE} y`);
      expect(answer.text).not.toContain(CONFIG_VALUE);
    });
  });

  describe('proxy:create and proxy:update without proxy:read', () => {
    it('never see the key, destination, configuration or transforms, and cannot move or re-run the secrets', async () => {
      const writer = await createApplication(test, { name: 'writer', type: 'management', permissions: ['proxy:create', 'proxy:update'] });
      const as = asKey(test, writer.key);
      const secretsOf = (body: Record<string, unknown>) =>
        ['key', 'destination_url', 'configuration', 'request_transforms', 'response_transforms', 'request_transform', 'response_transform'].filter((name) => name in body);
      const created = await as.post('/proxies', { name: 'w', destination_url: dest.url('/w/'), configuration: { k: 'writer-own-value' } });
      expect(created.status).toBe(201);
      expect(secretsOf(created.body)).toEqual([]);
      const renamed = await as.patch(`/proxies/${proxy.id}`, { name: 'renamed' });
      expect(renamed.status).toBe(200);
      expect(secretsOf(renamed.body)).toEqual([]);
      expect((await as.get(`/proxies/${proxy.id}`)).status).toBe(403);
      expect((await as.patch(`/proxies/${proxy.id}`, { destination_url: dest.url('/elsewhere/') })).status).toBe(403);
      const echoConfiguration = [{ type: 'code', code: 'module.exports = async ({ configuration }) => ({ body: configuration })' }];
      expect((await as.patch(`/proxies/${proxy.id}`, { response_transforms: echoConfiguration })).status).toBe(403);
      expect((await as.patch(`/proxies/${proxy.id}`, { response_transform: { code: echoConfiguration[0].code } })).status).toBe(403);
      expect((await as.patch(`/proxies/${proxy.id}`, { require_auth: false })).status).toBe(403);
      expect((await as.patch(`/proxies/${proxy.id}`, { configuration: { region: 'us' }, response_transforms: echoConfiguration })).status).toBe(403);
      expect((await as.put(`/proxies/${proxy.id}`, { name: 'echo', destination_url: dest.url('/elsewhere/') })).status).toBe(403);
      expect((await admin().get(`/proxies/${proxy.id}`)).body.configuration).toEqual({ api_key: CONFIG_VALUE, region: 'eu' });
    });
  });

  describe('destinations that misbehave', () => {
    it('a gzip bomb is a 502 and a silent destination a 504, both the vault answers', async () => {
      const bomb = await invoke('/bomb').send('x');
      expect({ status: bomb.status, error: bomb.headers['svc-proxy-error'] }).toEqual({ status: 502, error: 'true' });
      const hang = await invoke('/hang').send('x');
      expect({ status: hang.status, error: hang.headers['svc-proxy-error'] }).toEqual({ status: 504, error: 'true' });
    });
  });

  describe('deletion and secrets at rest', () => {
    it("a deleted proxy's key opens nothing at once, and no file or log line holds its key or configuration", async () => {
      const doomed = (await admin().post('/proxies', { name: 'doomed', destination_url: dest.url('/d/'), require_auth: false, configuration: { token: 'cfg_DoomedValue_9876' } })).body;
      expect((await invoke('/x', null, doomed.key)).status).toBe(200);
      expect((await admin().delete(`/proxies/${doomed.id}`)).status).toBe(204);
      expect((await invoke('/x', null, doomed.key)).status).toBe(401);
      expect((await invoke('/x', caller.key, doomed.key)).status).toBe(404);
      const scan = scanStored(test.dataDir, test.logs, [
        ['configuration', Buffer.from(CONFIG_VALUE)],
        ['deleted configuration', Buffer.from('cfg_DoomedValue_9876')],
        ['proxy key', Buffer.from(proxy.key)],
        ['deleted proxy key', Buffer.from(doomed.key)],
        ['card', Buffer.from(CARD)],
        ['secret', Buffer.from(SECRET)],
      ]);
      expect(scan.found).toBeNull();
      expect(scan.sees('inbound')).toBe(true); // the scan reads what is stored (a proxy name)
    });
  });
});
