// Destinations for the proxy invocation suites: one local server on 127.0.0.1 whose path picks the behaviour, recording
// every request's bytes, and a port nothing listens on.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface Received {
  method: string;
  /** Path and query as the destination saw them. */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Destination {
  /** `127.0.0.1:<port>`, an allowed-hosts entry. */
  host: string;
  url(path: string): string;
  received: Received[];
  /** The last request whose path starts with `prefix`. */
  last(prefix: string): Received;
  /** Lets every request held at /hold answer. */
  release(): void;
  close(): Promise<void>;
}

/** How long /slow waits before it answers: longer than the suites' VAULT_PROXY_TIMEOUT_MS. */
export const SLOW_MS = 3_000;
export const TIMEOUT_MS = '1500';

/**
 * `/echo…` (and any path not named below) answers JSON of what it received (`method`, `url`, `headers`, `body` as
 * text, `base64`, `base64url`, `bare`: the text without spaces and dashes), with the body also URL-encoded in `x-echo`,
 * base64 in `x-echo-b64`, and the request's `x-card` header in `x-echo-header`; `/mirror` answers the body's bytes
 * with its content type; `/slow` waits SLOW_MS; `/hold` waits for release(); `/huge` answers more than 1 MiB;
 * `/redirect?to=<url>` is a 302; `/gzip` answers gzip'd JSON; `/hop` answers hop-by-hop headers, cookies and an SVC-PROXY-ERROR of its own;
 * `/status/<n>` answers n.
 */
export const startDestination = async (): Promise<Destination> => {
  let held: Array<() => void> = [];
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const got: Received = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) };
      received.push(got);
      const path = got.url.split('?')[0];
      const json = (status: number, value: unknown, headers: Record<string, string | string[]> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(JSON.stringify(value));
      };
      if (path.startsWith('/mirror')) {
        response.writeHead(200, { 'content-type': request.headers['content-type'] ?? 'application/octet-stream' });
        response.end(got.body);
      } else if (path === '/slow') {
        // Gone with the client, so no timer outlives the suite.
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, SLOW_MS);
          response.on('close', () => (clearTimeout(timer), resolve()));
        });
        if (!response.destroyed) json(200, { late: true });
      } else if (path === '/hold') {
        await new Promise<void>((resolve) => held.push(resolve));
        if (!response.destroyed) json(200, { body: got.body.toString('utf8') });
      } else if (path === '/huge') {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end(Buffer.alloc(1024 * 1024 + 1, 'x'));
      } else if (path === '/redirect') {
        response.writeHead(302, { location: new URL(got.url, 'http://x').searchParams.get('to') ?? '/', 'content-type': 'text/plain' });
        response.end('moved');
      } else if (path === '/gzip') {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        response.end(gzipSync(JSON.stringify({ compressed: true, body: got.body.toString('utf8') })));
      } else if (path === '/hop') {
        response.writeHead(200, [
          ['content-type', 'text/plain'],
          ['connection', 'x-private'],
          ['x-private', 'hop'],
          ['keep-alive', 'timeout=5'],
          ['proxy-authenticate', 'Basic'],
          ['set-cookie', 'session=destination-cookie'],
          ['svc-proxy-error', 'true'],
          ['x-kept', 'end-to-end'],
          ['x-repeated', 'one'],
          ['x-repeated', 'two'],
        ]);
        response.end('hop');
      } else if (path.startsWith('/status/')) {
        json(Number(path.slice('/status/'.length)), { status: 'as the destination says' }, { 'x-destination': 'yes' });
      } else {
        const text = got.body.toString('utf8');
        json(
          200,
          {
            method: got.method,
            url: got.url,
            headers: got.headers,
            body: text,
            base64: got.body.toString('base64'),
            base64url: got.body.toString('base64url'),
            bare: text.replace(/[\s-]/g, ''),
          },
          { 'x-echo': encodeURIComponent(text), 'x-echo-b64': got.body.toString('base64'), 'x-echo-header': String(got.headers['x-card'] ?? '') },
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    last: (prefix) => {
      const found = received.filter((r) => r.url.startsWith(prefix)).at(-1);
      if (!found) throw new Error(`nothing reached ${prefix}`);
      return found;
    },
    release: () => {
      for (const resolve of held) resolve();
      held = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const resolve of held) resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** `127.0.0.1:<port>` of a port that was free a moment ago: connecting to it is refused. */
export const closedPort = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
};

/** An application holding token:use (and others), with one rule on `/` showing `transform` for `rulePermissions`. */
export const privateApp = (name: string, permissions: string[], transform: 'reveal' | 'mask' | 'redact', rulePermissions = permissions) => ({
  name,
  type: 'private',
  permissions,
  rules: [{ priority: 1, container: '/', transform, permissions: rulePermissions }],
});
