import { AllowedHosts } from './allowed-hosts';
import { startLocalHttpServer, writeForever, type LocalHttpServer } from '@vault/test-support/local-http-server';
import { sandboxFetch, type SandboxFetchAnswer, type SandboxFetchPolicy } from './sandbox-fetch';

let allowed: LocalHttpServer;
let alsoAllowed: LocalHttpServer;
let notAllowed: LocalHttpServer;

const route = (server: () => LocalHttpServer): Parameters<typeof startLocalHttpServer>[0] => async (request, response) => {
  const url = new URL(request.path, 'http://localhost');
  if (url.pathname === '/hello') {
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-reply': 'yes' });
    response.end('héllo');
  } else if (url.pathname === '/echo') {
    response.writeHead(201, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ method: request.method, headers: request.headers, body: request.body, from: server().host }));
  } else if (url.pathname === '/redirect') {
    response.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/hello' });
    response.end('moving');
  } else if (url.pathname === '/loop') {
    response.writeHead(302, { location: '/loop' });
    response.end();
  } else if (url.pathname === '/bytes') {
    const size = Number(url.searchParams.get('n'));
    response.writeHead(200, { 'content-length': String(size) });
    response.end(Buffer.alloc(size, 'a'));
  } else if (url.pathname === '/endless') {
    await writeForever(response);
  } else if (url.pathname === '/never') {
    // Holds the request open until the client gives up.
  } else {
    response.writeHead(404).end();
  }
};

beforeAll(async () => {
  allowed = await startLocalHttpServer(route(() => allowed));
  alsoAllowed = await startLocalHttpServer(route(() => alsoAllowed));
  notAllowed = await startLocalHttpServer(route(() => notAllowed));
});
afterAll(() => Promise.all([allowed, alsoAllowed, notAllowed].map((server) => server.close())));

const policy = (overrides: Partial<SandboxFetchPolicy> = {}): SandboxFetchPolicy => ({
  allowedHosts: AllowedHosts.parse([allowed.host, alsoAllowed.host]),
  maxResponseBytes: 1024,
  maxRedirects: 3,
  ...overrides,
});

const fetchOf = (request: unknown, overrides: Partial<SandboxFetchPolicy> = {}, signal = new AbortController().signal) =>
  sandboxFetch(request, policy(overrides), signal);

const refusal = (answer: SandboxFetchAnswer): string => {
  if (answer.error === null) throw new Error(`the fetch was answered with ${answer.response.status}`);
  return answer.error;
};

describe('sandboxFetch to an allowed host', () => {
  it('answers status, final URL, lower-case headers and the body as UTF-8 text', async () => {
    const answer = await fetchOf({ url: allowed.url('/hello') });
    expect(answer.error).toBeNull();
    expect(answer.response).toMatchObject({ status: 200, url: allowed.url('/hello'), body: 'héllo' });
    expect(answer.response?.headers).toEqual(expect.arrayContaining([['x-reply', 'yes']]));
  });

  it('sends the method, headers and body the code gave', async () => {
    const answer = await fetchOf({
      url: allowed.url('/echo'),
      method: 'post',
      headers: { 'Content-Type': 'application/json', 'X-Api-Key': 'k-1' },
      body: '{"a":1}',
    });
    expect(answer.response?.status).toBe(201);
    const echoed = JSON.parse(answer.response?.body ?? '');
    expect(echoed).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json', 'x-api-key': 'k-1' } });
  });

  it('reads a body of exactly the cap', async () => {
    const answer = await fetchOf({ url: allowed.url('/bytes?n=1024') });
    expect(answer.response?.body).toHaveLength(1024);
  });
});

describe('sandboxFetch refuses, before anything is sent', () => {
  it.each<[string, () => unknown, RegExp]>([
    ['a host not on the list', () => ({ url: notAllowed.url('/hello') }), /^fetch refused: the host is not in VAULT_REACTOR_ALLOWED_HOSTS\.$/],
    ['the allowed address under another name', () => ({ url: allowed.url('/hello').replace('127.0.0.1', 'localhost') }), /^fetch refused: the host is not in VAULT_REACTOR_ALLOWED_HOSTS\.$/],
    ['a file: URL', () => ({ url: 'file:///etc/passwd' }), /^fetch refused: only http: and https: URLs are allowed\.$/],
    ['a data: URL', () => ({ url: 'data:text/plain,hi' }), /only http: and https: URLs are allowed/],
    ['a URL with credentials', () => ({ url: allowed.url('/hello').replace('//', '//user:pw@') }), /may not hold a user name or password/],
    ['a URL that does not parse', () => ({ url: 'not a url' }), /^fetch: the URL is not valid\.$/],
    ['a method outside the list', () => ({ url: allowed.url('/hello'), method: 'CONNECT' }), /the method must be one of GET, HEAD/],
    ['a GET with a body', () => ({ url: allowed.url('/hello'), body: 'x' }), /a GET request cannot have a body/],
    ['a body that is not a string', () => ({ url: allowed.url('/echo'), method: 'POST', body: { a: 1 } }), /the body must be a string/],
    ['a header value with a line break', () => ({ url: allowed.url('/hello'), headers: { 'x-smuggle': 'a\r\nHost: evil' } }), /header x-smuggle is not valid/],
    ['a header name that is not a token', () => ({ url: allowed.url('/hello'), headers: { 'bad name': 'x' } }), /a header name is not a valid HTTP header name/],
    ['a request that is not an object', () => 'http://127.0.0.1/', /the request is not valid/],
  ])('%s', async (_title, request, message) => {
    const before = allowed.received.length + notAllowed.received.length;
    expect(refusal(await fetchOf(request()))).toMatch(message);
    expect(allowed.received.length + notAllowed.received.length).toBe(before);
  });

  it('every host when the list is empty: reactors have no network', async () => {
    const answer = await fetchOf({ url: allowed.url('/hello') }, { allowedHosts: AllowedHosts.parse([]) });
    expect(refusal(answer)).toBe('fetch refused: the host is not in VAULT_REACTOR_ALLOWED_HOSTS (which is empty: reactors have no network).');
  });

  it('without quoting a header value, the path or the query, which may hold secrets', async () => {
    const messages = await Promise.all([
      fetchOf({ url: notAllowed.url('/v1/Zq9secret?key=Zq9secret') }),
      fetchOf({ url: allowed.url('/hello'), headers: { authorization: 'Zq9secret\n' } }),
      fetchOf({ url: 'file:///Zq9secret' }),
      fetchOf({ url: 'http://127.0.0.1:1/Zq9secret?key=Zq9secret' }, { allowedHosts: AllowedHosts.parse(['127.0.0.1:1']) }),
    ]);
    for (const answer of messages) expect(refusal(answer)).not.toMatch(/Zq9/);
  });

  it('without naming the host or its port, which may come from the configuration', async () => {
    const to = encodeURIComponent(notAllowed.url('/hello'));
    const messages = await Promise.all([
      fetchOf({ url: notAllowed.url('/hello') }),
      fetchOf({ url: allowed.url(`/redirect?to=${to}`) }),
      fetchOf({ url: allowed.url('/bytes?n=1025') }),
      fetchOf({ url: 'http://127.0.0.1:1/x' }, { allowedHosts: AllowedHosts.parse(['127.0.0.1:1']) }),
      fetchOf({ url: allowed.url('/hello') }, { allowedHosts: AllowedHosts.parse([]) }),
    ]);
    const ports = [allowed, notAllowed].map((server) => server.host.split(':')[1]);
    for (const answer of messages) {
      expect(refusal(answer)).not.toMatch(/127\.0\.0\.1|localhost/);
      for (const port of ports) expect(refusal(answer)).not.toContain(port);
    }
  });
});

describe('sandboxFetch follows redirects hop by hop', () => {
  it('keeping credentials within one origin, and turning a POST into a GET on 303', async () => {
    const answer = await fetchOf({ url: allowed.url('/redirect?status=303&to=/echo'), method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'text/plain' }, body: 'b' });
    const echoed = JSON.parse(answer.response?.body ?? '');
    expect(echoed).toMatchObject({ method: 'GET', body: '', headers: { authorization: 'Bearer t' } });
    expect(echoed.headers).not.toHaveProperty('content-type');
  });

  it.each([301, 302, 303, 307, 308])('never to a host not on the list (%i), which gets no request', async (status) => {
    const to = encodeURIComponent(notAllowed.url('/hello'));
    const before = notAllowed.received.length;
    expect(refusal(await fetchOf({ url: allowed.url(`/redirect?status=${status}&to=${to}`) }))).toMatch(
      /^fetch refused: redirected: the host is not in VAULT_REACTOR_ALLOWED_HOSTS\.$/,
    );
    expect(notAllowed.received.length).toBe(before);
  });

  it('never to another scheme', async () => {
    const answer = await fetchOf({ url: allowed.url(`/redirect?to=${encodeURIComponent('file:///etc/passwd')}`) });
    expect(refusal(answer)).toBe('fetch refused: redirected: only http: and https: URLs are allowed.');
  });

  it('at most maxRedirects times', async () => {
    const before = allowed.received.length;
    expect(refusal(await fetchOf({ url: allowed.url('/loop') }))).toBe('fetch refused: more than 3 redirects.');
    expect(allowed.received.length - before).toBe(4);
  });
});

describe('sandboxFetch on a redirect to another allowed origin', () => {
  const across = (status: number) => allowed.url(`/redirect?status=${status}&to=${encodeURIComponent(alsoAllowed.url('/echo'))}`);
  const within = (status: number) => allowed.url(`/redirect?status=${status}&to=/echo`);
  const echoed = (answer: SandboxFetchAnswer): { from: string; method: string; body: string; headers: Record<string, string> } =>
    JSON.parse(answer.response?.body ?? '');

  it('sends no credential header of the code: x-api-key and authorization stay with the origin it named', async () => {
    const answer = await fetchOf({ url: across(307), method: 'POST', headers: { 'x-api-key': 'S', authorization: 'Bearer t' }, body: '{"a":1}' });
    expect(answer.response?.url).toBe(alsoAllowed.url('/echo'));
    const received = echoed(answer);
    expect(received.from).toBe(alsoAllowed.host);
    expect(received.headers).not.toHaveProperty('x-api-key');
    expect(received.headers).not.toHaveProperty('authorization');
  });

  it('keeps every header and the body within one origin', async () => {
    const answer = await fetchOf({ url: within(307), method: 'POST', headers: { 'x-api-key': 'S', 'content-type': 'application/json' }, body: '{"a":1}' });
    expect(echoed(answer)).toMatchObject({
      from: allowed.host,
      method: 'POST',
      body: '{"a":1}',
      headers: { 'x-api-key': 'S', 'content-type': 'application/json' },
    });
  });

  it.each<[number, string, string, string]>([
    [303, 'POST', 'GET', ''],
    [303, 'PUT', 'GET', ''],
    [303, 'DELETE', 'GET', ''],
    [301, 'POST', 'GET', ''],
    [302, 'POST', 'GET', ''],
    [301, 'PUT', 'PUT', 'b'],
    [302, 'PATCH', 'PATCH', 'b'],
    [307, 'POST', 'POST', 'b'],
    [307, 'PUT', 'PUT', 'b'],
    [308, 'POST', 'POST', 'b'],
    [308, 'DELETE', 'DELETE', 'b'],
  ])('%i: a %s arrives as %s with body %p, its safelisted headers only', async (status, method, arrives, body) => {
    const headers = { 'x-api-key': 'S', accept: 'application/json', 'content-type': 'text/plain', 'content-language': 'en' };
    const received = echoed(await fetchOf({ url: across(status), method, headers, body: 'b' }));
    expect(received).toMatchObject({ from: alsoAllowed.host, method: arrives, body });
    expect(received.headers).not.toHaveProperty('x-api-key');
    expect(received.headers.accept).toBe('application/json');
    if (arrives === 'GET') {
      // A body's own headers go with it.
      expect(received.headers).not.toHaveProperty('content-type');
      expect(received.headers).not.toHaveProperty('content-language');
    } else {
      expect(received.headers).toMatchObject({ 'content-type': 'text/plain', 'content-language': 'en' });
    }
  });

  it('carries a safelisted content-type (text/plain) but not application/json', async () => {
    const sent = (contentType: string) => fetchOf({ url: across(307), method: 'POST', headers: { 'content-type': contentType }, body: 'b' });
    expect(echoed(await sent('text/plain; charset=utf-8')).headers['content-type']).toBe('text/plain; charset=utf-8');
    // What arrives instead is fetch's own default for a string body.
    expect(echoed(await sent('application/json')).headers['content-type']).not.toMatch(/json/);
  });
});

describe('sandboxFetch caps the response body', () => {
  it('refuses a declared length over the cap without reading it', async () => {
    expect(refusal(await fetchOf({ url: allowed.url('/bytes?n=1025') }))).toMatch(
      /^fetch refused: the response is larger than 1024 bytes\.$/,
    );
  });

  it('stops reading an endless body at the cap and hangs up', async () => {
    const started = Date.now();
    expect(refusal(await fetchOf({ url: allowed.url('/endless') }, { maxResponseBytes: 256 * 1024 }))).toMatch(/larger than 262144 bytes/);
    expect(Date.now() - started).toBeLessThan(5000);
    await waitFor(() => allowed.abandoned.includes('/endless'));
  });
});

describe('sandboxFetch under the run\'s signal', () => {
  it('gives up on a server that never answers once the signal aborts, and hangs up', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const answer = await fetchOf({ url: allowed.url('/never') }, {}, controller.signal);
    expect(refusal(answer)).toBe('fetch aborted: the reactor ran out of time.');
    await waitFor(() => allowed.abandoned.includes('/never'));
  });

  it('names the failure of a connection by its code only', async () => {
    const answer = await fetchOf({ url: 'http://127.0.0.1:1/x' }, { allowedHosts: AllowedHosts.parse(['127.0.0.1:1']) });
    expect(refusal(answer)).toMatch(/^fetch failed( \(ECONNREFUSED\))?\.$/);
  });
});

const waitFor = async (condition: () => boolean, timeoutMs = 3000): Promise<void> => {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
