import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import type { EgressAnswer, EgressRequest, HeaderLines } from '@vault/application/ports/proxy-egress';
import { HttpProxyEgress } from './http-proxy-egress';

const MiB = 1_048_576;

/** What the echo route saw, as the wire had it. */
interface Echoed {
  method: string;
  url: string;
  headers: HeaderLines;
  body: string;
}

interface TestServer {
  origin: string;
  connections: number;
  /** Paths whose answer the client went away from before it ended. */
  abandoned: string[];
  close(): Promise<void>;
}

const listen = async (server: net.Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

const startHttpServer = async (
  route: (request: IncomingMessage, body: Buffer, response: ServerResponse) => void,
): Promise<TestServer> => {
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.on('close', () => {
        if (!response.writableFinished) local.abandoned.push(request.url ?? '');
      });
      route(request, Buffer.concat(chunks), response);
    });
  });
  server.on('connection', () => local.connections++);
  const port = await listen(server);
  const local: TestServer = {
    origin: `http://127.0.0.1:${port}`,
    connections: 0,
    abandoned: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return local;
};

/** A TCP server that reads a request's head, then does whatever `reply` does with the socket. */
const startRawServer = async (reply: (socket: Socket) => void): Promise<TestServer> => {
  const sockets = new Set<Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      reply(socket);
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
  });
  const port = await listen(server);
  return {
    origin: `http://127.0.0.1:${port}`,
    connections: 0,
    abandoned: [],
    close: () =>
      new Promise((resolve) => {
        sockets.forEach((socket) => socket.destroy());
        server.close(() => resolve());
      }),
  };
};

const writeForever = (response: ServerResponse, headers: http.OutgoingHttpHeaders = {}) => {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const write = () => {
    while (!response.destroyed && response.write(chunk));
    if (!response.destroyed) response.once('drain', write);
  };
  response.writeHead(200, { 'content-type': 'text/plain', ...headers });
  write();
};

const TEXT = 'the same words, over and over. '.repeat(200);
const ZIP_BOMB = zlib.gzipSync(Buffer.alloc(64 * MiB), { level: 9 });

const route = (request: IncomingMessage, body: Buffer, response: ServerResponse): void => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  switch (url.pathname) {
    case '/echo': {
      const headers: HeaderLines = [];
      for (let i = 0; i < request.rawHeaders.length; i += 2) headers.push([request.rawHeaders[i], request.rawHeaders[i + 1]]);
      const echoed: Echoed = { method: request.method ?? '', url: request.url ?? '', headers, body: body.toString('base64') };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(echoed));
      return;
    }
    case '/redirect':
      response.writeHead(302, { location: '/echo' }).end('moved');
      return;
    case '/never':
      return;
    case '/stalls':
      response.writeHead(200, { 'content-length': '100' });
      response.write('only part of it');
      return;
    case '/declared-huge':
      response.writeHead(200, { 'content-length': String(10 * MiB) });
      response.flushHeaders();
      return;
    case '/endless':
      writeForever(response);
      return;
    case '/gzip':
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' }).end(zlib.gzipSync(TEXT));
      return;
    case '/br':
      response.writeHead(200, { 'content-encoding': 'br', 'content-type': 'text/plain' }).end(zlib.brotliCompressSync(TEXT));
      return;
    case '/deflate':
      response.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateSync(TEXT));
      return;
    case '/deflate-raw':
      response.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateRawSync(TEXT));
      return;
    case '/bomb':
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(ZIP_BOMB.length) }).end(ZIP_BOMB);
      return;
    case '/compress':
      response.writeHead(200, { 'content-encoding': 'compress' }).end('whatever');
      return;
    default:
      response.writeHead(404).end();
  }
};

const request = (url: string, overrides: Partial<EgressRequest> = {}): EgressRequest => ({
  url: new URL(url),
  method: 'GET',
  headers: [],
  body: null,
  ...overrides,
});

const answered = (answer: EgressAnswer) => {
  if (answer.failed !== null) throw new Error(`expected an answer, got ${answer.failed}`);
  return answer;
};

const echoOf = (answer: EgressAnswer): Echoed => JSON.parse(answered(answer).body.toString('utf8')) as Echoed;

const namesOf = (headers: HeaderLines) => headers.map(([name]) => name.toLowerCase());

let server: TestServer;
let egress: HttpProxyEgress;

beforeAll(async () => {
  server = await startHttpServer(route);
  egress = new HttpProxyEgress({ timeoutMs: 5_000, maxResponseBytes: MiB });
});

afterAll(async () => {
  egress.close();
  await server.close();
});

describe('what goes out', () => {
  it('sends the method, path and query as given, and the body byte for byte', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

    const echoed = echoOf(await egress.send(request(`${server.origin}/echo?a=1&b=%20x&a=2`, { method: 'PUT', body: bytes })));

    expect(echoed.method).toBe('PUT');
    expect(echoed.url).toBe('/echo?a=1&b=%20x&a=2');
    expect(Buffer.from(echoed.body, 'base64').equals(bytes)).toBe(true);
    expect(echoed.headers).toContainEqual(['content-length', '256']);
  });

  it('keeps repeated header lines in order, and sets host, accept-encoding and the length itself', async () => {
    const headers: HeaderLines = [
      ['x-multi', 'one'],
      ['content-type', 'text/plain'],
      ['x-multi', 'two'],
      ['accept-encoding', 'gzip, deflate, br'],
      ['host', 'somewhere.else'],
      ['content-length', '999'],
    ];

    const echoed = echoOf(await egress.send(request(`${server.origin}/echo`, { method: 'POST', headers, body: Buffer.from('hi') })));

    expect(echoed.headers.filter(([name]) => name === 'x-multi')).toEqual([['x-multi', 'one'], ['x-multi', 'two']]);
    expect(echoed.headers.filter(([name]) => name === 'host')).toEqual([['host', new URL(server.origin).host]]);
    expect(echoed.headers.filter(([name]) => name === 'accept-encoding')).toEqual([['accept-encoding', 'identity']]);
    expect(echoed.headers.filter(([name]) => name === 'content-length')).toEqual([['content-length', '2']]);
    expect(echoed.headers).toContainEqual(['content-type', 'text/plain']);
  });

  it.each([
    ['GET', 'no length', undefined],
    ['DELETE', 'no length', undefined],
    ['POST', 'a length of 0', '0'],
    ['PATCH', 'a length of 0', '0'],
  ])('a %s without a body sends %s, never chunked framing', async (method, _, length) => {
    const echoed = echoOf(await egress.send(request(`${server.origin}/echo`, { method })));

    expect(echoed.method).toBe(method);
    expect(echoed.headers.find(([name]) => name === 'content-length')?.[1]).toBe(length);
    expect(namesOf(echoed.headers)).not.toContain('transfer-encoding');
  });
});

describe('what comes back', () => {
  it('answers a redirect as it is, without following it', async () => {
    const answer = answered(await egress.send(request(`${server.origin}/redirect`)));

    expect(answer.status).toBe(302);
    expect(answer.headers).toContainEqual(['location', '/echo']);
    expect(answer.body.toString()).toBe('moved');
  });

  it('keeps repeated headers and drops hop-by-hop ones, those named in connection, set-cookie and the length', async () => {
    const body = 'hello';
    const raw = await startRawServer((socket) =>
      socket.end(
        [
          'HTTP/1.1 201 Created',
          'Content-Type: text/plain',
          'X-Multi: one',
          'Set-Cookie: session=secret',
          'Connection: keep-alive, X-Private',
          'Keep-Alive: timeout=5',
          'X-Private: internal',
          'Proxy-Authenticate: Basic',
          'Trailer: x-checksum',
          'Upgrade: h2c',
          'X-Multi: two',
          `Content-Length: ${body.length}`,
          '',
          body,
        ].join('\r\n'),
      ),
    );
    try {
      const answer = answered(await egress.send(request(`${raw.origin}/`)));

      expect(answer.status).toBe(201);
      expect(answer.headers).toEqual([
        ['content-type', 'text/plain'],
        ['x-multi', 'one'],
        ['x-multi', 'two'],
      ]);
      expect(answer.body.toString()).toBe(body);
    } finally {
      await raw.close();
    }
  });

  it.each(['/gzip', '/br', '/deflate', '/deflate-raw'])('decodes %s and drops content-encoding', async (path) => {
    const answer = answered(await egress.send(request(`${server.origin}${path}`)));

    expect(answer.body.toString()).toBe(TEXT);
    expect(namesOf(answer.headers)).not.toContain('content-encoding');
    expect(namesOf(answer.headers)).not.toContain('content-length');
  });

  it('fails an encoding it cannot decode as unreachable', async () => {
    expect(await egress.send(request(`${server.origin}/compress`))).toEqual({ failed: 'unreachable' });
  });
});

describe('limits', () => {
  it('refuses a declared length over the cap without reading the body', async () => {
    const started = Date.now();

    expect(await egress.send(request(`${server.origin}/declared-huge`))).toEqual({ failed: 'too_large' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('stops reading an endless body without a length at the cap, and drops the connection', async () => {
    expect(await egress.send(request(`${server.origin}/endless`))).toEqual({ failed: 'too_large' });
    await waitFor(() => server.abandoned.includes('/endless'));
  });

  it('stops decoding a gzip bomb at the cap, quickly', async () => {
    const started = Date.now();

    expect(await egress.send(request(`${server.origin}/bomb`))).toEqual({ failed: 'too_large' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('answers a body exactly at the cap', async () => {
    const exact = await startHttpServer((_request, _body, response) => response.end(Buffer.alloc(MiB, 'a')));
    try {
      expect(answered(await egress.send(request(`${exact.origin}/`))).body.length).toBe(MiB);
    } finally {
      await exact.close();
    }
  });

  it.each(['/never', '/stalls'])('gives up on %s at the deadline and drops the connection', async (path) => {
    const impatient = new HttpProxyEgress({ timeoutMs: 150, maxResponseBytes: MiB });
    const started = Date.now();

    expect(await impatient.send(request(`${server.origin}${path}`))).toEqual({ failed: 'timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    await waitFor(() => server.abandoned.includes(path));
    impatient.close();
  });
});

describe('broken destinations', () => {
  it('answers unreachable when nothing listens on the port', async () => {
    const closed = net.createServer();
    const port = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));

    expect(await egress.send(request(`http://127.0.0.1:${port}/`))).toEqual({ failed: 'unreachable' });
  });

  it.each([
    ['closes the socket without answering', (socket: Socket) => socket.destroy()],
    ['answers something that is not HTTP', (socket: Socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n')],
    [
      'closes the socket halfway through the body',
      (socket: Socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nnot all of it'),
    ],
  ])('answers unreachable when the server %s', async (_, reply) => {
    const raw = await startRawServer(reply);
    try {
      expect(await egress.send(request(`${raw.origin}/`))).toEqual({ failed: 'unreachable' });
    } finally {
      await raw.close();
    }
  });

  const openssl = spawnSync('openssl', ['version']).status === 0;
  (openssl ? it : it.skip)('verifies https certificates: a self-signed one is unreachable', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'egress-tls-'));
    try {
      const made = spawnSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
      ]);
      expect(made.status).toBe(0);
      const tls = https.createServer(
        { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
        (_request, response) => response.end('secret'),
      );
      const port = await listen(tls);
      try {
        expect(await egress.send(request(`https://127.0.0.1:${port}/`))).toEqual({ failed: 'unreachable' });
      } finally {
        tls.closeAllConnections();
        await new Promise((resolve) => tls.close(resolve));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('connections', () => {
  it('reuses one kept-alive connection for sequential sends', async () => {
    const pooled = new HttpProxyEgress({ timeoutMs: 5_000, maxResponseBytes: MiB });
    const before = server.connections;

    answered(await pooled.send(request(`${server.origin}/echo`)));
    answered(await pooled.send(request(`${server.origin}/echo`, { method: 'POST', body: Buffer.from('again') })));

    expect(server.connections - before).toBe(1);
    pooled.close();
  });

  it('answers 32 concurrent sends', async () => {
    const answers = await Promise.all(
      Array.from({ length: 32 }, (_, i) => egress.send(request(`${server.origin}/echo?n=${i}`))),
    );

    expect(answers.map((answer) => echoOf(answer).url)).toEqual(Array.from({ length: 32 }, (_, i) => `/echo?n=${i}`));
  });
});

const waitFor = async (condition: () => boolean, timeoutMs = 2_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};
