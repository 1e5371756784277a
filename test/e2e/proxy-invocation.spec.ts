// ANY /proxy over HTTP against local destinations: what is forwarded and what comes back, who may invoke, the vault's
// own answers (SVC-PROXY-ERROR), failures of the destination, the audit entries and metrics, and revocation mid-flight.
// Detokenization, transforms, what flows back and anonymous invocations have their own files in proxy-invocation/.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Response } from 'supertest';
import { scanStored } from '../support/data-dir';
import { asKey, BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';
import { closedPort, privateApp, startDestination, TIMEOUT_MS, type Destination } from './proxy-invocation/destinations';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Reads any answer as bytes (a superagent parser: the response is a stream). */
const bytes = (res: Response, done: (error: Error | null, body: Buffer) => void) => {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
};

const expectVaultAnswer = (response: Response, status: number) => {
  expect({ status: response.status, error: response.headers['svc-proxy-error'] }).toEqual({ status, error: 'true' });
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
};

describe('ANY /proxy', () => {
  let test: TestApp;
  let dest: Destination;
  let other: Destination;
  let closed: string;
  let caller: { id: string; key: string };
  let root: { id: string; key: string }; // destination: the server's root
  let based: { id: string; key: string }; // destination: /api/v1?fixed=1
  const admin = () => asKey(test, BOOTSTRAP_KEY);
  const createProxy = async (body: Record<string, unknown>) => {
    const response = await admin().post('/proxies', { name: 'proxy', ...body });
    if (response.status !== 201) throw new Error(`create proxy: ${response.status} ${response.text}`);
    return response.body as { id: string; key: string };
  };
  const invoke = (method: Method, path: string, proxyKey: string | null = root.key, apiKey: string | null = caller.key) => {
    let request = test.http()[method](`/proxy${path}`);
    if (proxyKey !== null) request = request.set('SVC-PROXY-KEY', proxyKey);
    if (apiKey !== null) request = request.set('SVC-API-KEY', apiKey);
    return request;
  };

  beforeAll(async () => {
    [dest, other, closed] = await Promise.all([startDestination(), startDestination(), closedPort()]);
    test = await startTestApp({
      VAULT_PROXY_ALLOWED_HOSTS: `${dest.host},${other.host},${closed}`,
      VAULT_PROXY_TIMEOUT_MS: TIMEOUT_MS,
      VAULT_RATE_LIMIT_PER_SECOND: '100000',
    });
    caller = await createApplication(test, privateApp('caller', ['token:create', 'token:read', 'token:use'], 'mask'));
    root = await createProxy({ destination_url: dest.url('/') });
    based = await createProxy({ destination_url: dest.url('/api/v1?fixed=1') });
  });
  afterAll(async () => {
    await test?.close();
    await Promise.all([dest?.close(), other?.close()]);
  });

  describe('forwarding', () => {
    it.each(['get', 'post', 'put', 'patch', 'delete'] as const)('%s: the method, the path and query appended, headers and body', async (method) => {
      const request = invoke(method, '/echo/a/b?x=1&y=two%20words', based.key).set('x-custom', 'kept');
      const response = await (method === 'get' ? request : request.set('content-type', 'application/json').send({ plain: 'body' }));
      expect(response.status).toBe(200);
      expect(response.headers['svc-proxy-error']).toBeUndefined();
      const got = dest.last('/api/v1/echo');
      expect(got.method).toBe(method.toUpperCase());
      expect(got.url).toBe('/api/v1/echo/a/b?fixed=1&x=1&y=two%20words');
      expect(got.headers['x-custom']).toBe('kept');
      if (method !== 'get') expect(JSON.parse(got.body.toString())).toEqual({ plain: 'body' });
      expect(response.body.method).toBe(method.toUpperCase());
    });

    it('takes the proxy key from the svc-proxy-key query parameter, and never forwards it', async () => {
      const response = await invoke('get', `/echo?a=1&svc-proxy-key=${root.key}&b=2`, null);
      expect(response.status).toBe(200);
      expect(dest.last('/echo').url).toBe('/echo?a=1&b=2');
      expect(JSON.stringify(dest.last('/echo'))).not.toContain(root.key);
    });

    it("never forwards the vault's headers nor hop-by-hop ones", async () => {
      const response = await invoke('post', '/echo')
        .set('Connection', 'x-drop')
        .set('x-drop', 'named by connection')
        .set('Keep-Alive', 'timeout=99')
        .set('TE', 'trailers')
        .set('Proxy-Authorization', 'Basic c2VjcmV0')
        .set('x-kept', 'yes')
        .set('content-type', 'text/plain')
        .send('hello');
      expect(response.status).toBe(200);
      const headers = dest.last('/echo').headers;
      expect(headers['x-kept']).toBe('yes');
      for (const name of ['svc-api-key', 'svc-proxy-key', 'svc-proxy-url', 'x-drop', 'te', 'proxy-authorization']) expect(headers).not.toHaveProperty(name);
      expect(headers['keep-alive']).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(caller.key);
    });

    it('forwards a body that came compressed, decompressed', async () => {
      const response = await invoke('post', '/echo').set('content-type', 'application/json').set('content-encoding', 'gzip')
        // As bytes: supertest would write a Buffer as JSON for a JSON content type.
        .serialize((body: unknown) => body as string)
        .send(gzipSync(JSON.stringify({ zipped: 'yes' })));
      expect(response.status).toBe(200);
      const got = dest.last('/echo');
      expect(got.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(got.body.toString())).toEqual({ zipped: 'yes' });
    });

    it('answers 413 with SVC-PROXY-ERROR to a body over 1 MiB, and sends nothing', async () => {
      const before = dest.received.length;
      const response = await invoke('post', '/echo').set('content-type', 'text/plain').send('x'.repeat(1024 * 1024 + 1));
      expectVaultAnswer(response, 413);
      expect(dest.received.length).toBe(before);
    });

    it('passes bytes of any type through untouched, both ways', async () => {
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64 * 1024), Buffer.from('{{ token: x }}')]);
      const response = await invoke('post', '/mirror').set('content-type', 'image/png').send(png).buffer(true).parse(bytes);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('image/png');
      expect(Buffer.compare(dest.last('/mirror').body, png)).toBe(0);
      expect(Buffer.compare(response.body as Buffer, png)).toBe(0);
    });

    it('decodes a compressed answer of the destination', async () => {
      const response = await invoke('post', '/gzip').set('content-type', 'text/plain').send('squeezed');
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBeUndefined();
      expect(response.body).toEqual({ compressed: true, body: 'squeezed' });
    });

    it.each(['/..', '/../x', '/a/../../x', '/%2e%2e/x', '/%2E%2E/x', '/.%2e/x', '/..%5cx', '/..%2fx', '/a/..%2f..%2fx', '/%252e%252e/x', '/..%255cx'])(
      'refuses %s, a path that leaves the destination (400 naming path)',
      async (path) => {
        const before = dest.received.length;
        const response = await invoke('get', path, based.key);
        expectVaultAnswer(response, 400);
        expect(Object.keys(response.body.errors)).toEqual(['path']);
        expect(dest.received.length).toBe(before);
      },
    );

    it('allows a path that stays within the destination, dots and encoded slashes included', async () => {
      expect((await invoke('get', '/a/../echo', based.key)).status).toBe(200);
      expect(dest.last('/api/v1/').url).toBe('/api/v1/echo?fixed=1');
      expect((await invoke('get', '/echo/v1.2..3/a%2Fb/..x', based.key)).status).toBe(200);
      expect(dest.last('/api/v1/').url).toBe('/api/v1/echo/v1.2..3/a%2Fb/..x?fixed=1');
    });
  });

  describe('what comes back', () => {
    it("is the destination's status, headers and body, without SVC-PROXY-ERROR", async () => {
      const response = await invoke('get', '/status/418');
      expect(response.status).toBe(418);
      expect(response.headers['x-destination']).toBe('yes');
      expect(response.headers['svc-proxy-error']).toBeUndefined();
      expect(response.body).toEqual({ status: 'as the destination says' });
    });

    it('leaves out hop-by-hop headers, set-cookie, and an SVC-PROXY-ERROR the destination sends: only the vault says that', async () => {
      const response = await invoke('get', '/hop');
      expect(response.status).toBe(200);
      expect(response.text).toBe('hop');
      expect(response.headers['x-kept']).toBe('end-to-end');
      expect(response.headers['x-repeated']).toBe('one, two');
      for (const name of ['x-private', 'proxy-authenticate', 'set-cookie', 'svc-proxy-error']) expect(response.headers).not.toHaveProperty(name);
      expect(response.headers['keep-alive']).not.toBe('timeout=5, timeout=5');
    });

    it('is a redirect as the destination gave it, never followed', async () => {
      const before = other.received.length;
      const response = await invoke('get', `/redirect?to=${encodeURIComponent(other.url('/elsewhere'))}`).redirects(0);
      expect(response.status).toBe(302);
      expect(response.headers.location).toBe(other.url('/elsewhere'));
      expect(response.headers['svc-proxy-error']).toBeUndefined();
      expect(other.received.length).toBe(before);
    });

    it('is a 504 when the destination takes longer than VAULT_PROXY_TIMEOUT_MS', async () => {
      const started = Date.now();
      const response = await invoke('get', '/slow');
      expectVaultAnswer(response, 504);
      expect(Date.now() - started).toBeLessThan(2_900);
    });

    it('is a 502 when the destination cannot be reached', async () => {
      const refusing = await createProxy({ destination_url: `http://${closed}/` });
      expectVaultAnswer(await invoke('get', '/x', refusing.key), 502);
    });

    it('is a 502 when the answer is larger than 1 MiB', async () => {
      const response = await invoke('get', '/huge');
      expectVaultAnswer(response, 502);
      expect(response.body.detail).toMatch(/1 MiB/);
    });
  });

  describe('who may invoke', () => {
    it('answers 403 to a key that is not a private application holding token:use', async () => {
      const manager = await createApplication(test, { name: 'manager', type: 'management', permissions: ['proxy:read'] });
      const noUse = await createApplication(test, privateApp('no use', ['token:read'], 'reveal'));
      expectVaultAnswer(await invoke('get', '/echo', root.key, manager.key), 403);
      expectVaultAnswer(await invoke('get', '/echo', root.key, noUse.key), 403);
      expectVaultAnswer(await invoke('get', '/echo', root.key, BOOTSTRAP_KEY), 403);
    });

    it('answers 401 to a key that is not valid', async () => {
      expectVaultAnswer(await invoke('get', '/echo', root.key, 'not-a-valid-key-0123456789'), 401);
    });

    it('answers 404 naming SVC-PROXY-KEY for an unknown key with an API key, and 401 without one, as "needs an API key"', async () => {
      const known = await invoke('get', '/echo', 'NoSuchProxyKey1234567890abc');
      expectVaultAnswer(known, 404);
      expect(Object.keys(known.body.errors)).toEqual(['SVC-PROXY-KEY']);
      const unknown = await invoke('get', '/echo', 'NoSuchProxyKey1234567890abc', null);
      const needsKey = await invoke('get', '/echo', root.key, null);
      expectVaultAnswer(unknown, 401);
      expectVaultAnswer(needsKey, 401);
      expect(unknown.body).toEqual(needsKey.body);
    });

    it('answers 400 naming SVC-PROXY-KEY when neither a key nor a URL is given, and when both are', async () => {
      const neither = await invoke('get', '/echo', null);
      expectVaultAnswer(neither, 400);
      expect(Object.keys(neither.body.errors)).toEqual(['SVC-PROXY-KEY']);
      const both = await invoke('get', '/echo').set('SVC-PROXY-URL', dest.url('/'));
      expectVaultAnswer(both, 400);
    });

    it('answers 405 to a method proxies do not take', async () => {
      expectVaultAnswer(await invoke('options' as Method, '/echo'), 405);
    });

    describe('ephemeral (SVC-PROXY-URL)', () => {
      it('sends to the URL, with the path and query appended', async () => {
        const response = await invoke('post', '/more?q=1', null).set('SVC-PROXY-URL', dest.url('/eph')).set('content-type', 'text/plain').send('x');
        expect(response.status).toBe(200);
        expect(dest.last('/eph').url).toBe('/eph/more?q=1');
      });

      it('needs an API key (401) and a URL on the allowed hosts (400 naming SVC-PROXY-URL)', async () => {
        expectVaultAnswer(await invoke('get', '/', null, null).set('SVC-PROXY-URL', dest.url('/eph')), 401);
        const refused = await invoke('get', '/', null).set('SVC-PROXY-URL', 'http://example.com/');
        expectVaultAnswer(refused, 400);
        expect(Object.keys(refused.body.errors)).toEqual(['SVC-PROXY-URL']);
      });
    });
  });

  it('records an invoke entry per invocation, with the proxy (or null for an ephemeral one)', async () => {
    const proxy = await createProxy({ destination_url: dest.url('/') });
    await invoke('get', '/echo', proxy.key);
    await invoke('get', '/echo', proxy.key);
    await invoke('get', '/eph', null).set('SVC-PROXY-URL', dest.url('/'));
    const logs = (await admin().get(`/logs?entity_id=${proxy.id}`)).body.data;
    const invokes = logs.filter((entry: { operation: string }) => entry.operation === 'invoke');
    expect(invokes).toHaveLength(2);
    expect(invokes[0]).toMatchObject({ entity_type: 'proxy', entity_id: proxy.id, actor_type: 'application', actor_id: caller.id, message: 'Proxy invoked' });
    const all = (await admin().get('/logs?entity_type=proxy&size=100')).body.data;
    expect(all).toContainEqual(expect.objectContaining({ entity_id: null, operation: 'invoke', message: 'Ephemeral proxy invoked', actor_id: caller.id }));
  });

  it('records an invoke entry also for an invocation refused before it was sent', async () => {
    const proxy = await createProxy({ destination_url: dest.url('/') });
    const missing = '0b6f3c9e-2a41-4f8e-9d57-3c1e8a2b7f10';
    const response = await invoke('post', '/echo', proxy.key).set('content-type', 'application/json').send({ card: `{{ ${missing} }}` });
    expect(response.status).toBe(400);
    const logs = (await admin().get(`/logs?entity_id=${proxy.id}`)).body.data;
    expect(logs.filter((entry: { operation: string }) => entry.operation === 'invoke')).toHaveLength(1);
  });

  it('counts invocations and destination durations on GET /metrics', async () => {
    await invoke('get', '/echo');
    await invoke('get', '/huge');
    const text = (await test.http().get('/metrics')).text;
    const sample = (name: string) => Number(text.split('\n').find((line) => line.startsWith(`${name} `))?.split(' ')[1] ?? NaN);
    expect(sample('vault_proxy_invocations_total{status="200",vault_error="false"}')).toBeGreaterThan(0);
    expect(sample('vault_proxy_invocations_total{status="502",vault_error="true"}')).toBeGreaterThan(0);
    expect(sample('vault_proxy_destination_duration_seconds_count')).toBeGreaterThan(0);
    expect(text).not.toContain(root.key);
    expect(text).not.toContain(dest.host);
  });

  it('logs and stores no proxy key, header, body, query or answer of an invocation', async () => {
    const marker = `Zq9inv${Date.now()}`;
    const response = await invoke('post', `/echo/${marker}-path?q=${marker}-query&svc-proxy-key=${root.key}`, null)
      .set('x-secret', `${marker}-header`)
      .set('content-type', 'text/plain')
      .send(`${marker}-body`);
    expect(response.status).toBe(200);
    expect(response.text).toContain(`${marker}-body`);
    await invoke('post', '/status/500').set('content-type', 'text/plain').send(`${marker}-failed`);
    const needles = [marker, root.key, based.key, caller.key].map((needle) => [needle, Buffer.from(needle)] as const);
    expect(scanStored(test.dataDir, test.logs, needles).found).toBeNull();
  });

  it("answers 401 when the caller's application is deleted while the destination holds the request", async () => {
    const doomed = await createApplication(test, privateApp('doomed', ['token:use'], 'mask'));
    const pending = invoke('post', '/hold', root.key, doomed.key).set('content-type', 'text/plain').send('held').then((response) => response);
    await waitFor(() => dest.received.some((r) => r.url === '/hold'));
    expect((await admin().delete(`/applications/${doomed.id}`)).status).toBe(204);
    dest.release();
    expectVaultAnswer(await pending, 401);
  });
});

const waitFor = async (condition: () => boolean, ms = 5_000) => {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
