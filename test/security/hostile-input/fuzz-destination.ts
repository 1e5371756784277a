// The destination of the fuzzer's proxies: it echoes what reached it (so whatever the vault forwards comes back to be
// checked), or misbehaves as the last segments of its path ask: too slow, too large, a compression bomb, a coding it
// cannot have, a broken connection, a head too large to read, an endless body, a 5xx or a redirect of its own, and the
// vault's own SVC-PROXY-ERROR header or a cookie it must not pass on. Every answer it makes says so in X-Destination.
import { gzipSync } from 'node:zlib';
import { startLocalHttpServer, writeForever, type LocalHttpServer } from '../../support/local-http-server';

/** What the path asks of the destination: `/mode/<mode>`. */
export const MODES = [
  'echo',
  'slow',
  'huge',
  'bomb',
  'badgzip',
  'coding',
  'reset',
  'bigheaders',
  'forever',
  'status500',
  'status502',
  'status503',
  'status504',
  'redirect',
  'proxyerror',
  'setcookie',
] as const;
export type Mode = (typeof MODES)[number];

/** The modes in which the destination is at fault, and what the vault answers then (a problem of its own). */
export const DESTINATION_FAULTS: Partial<Record<Mode, 502 | 504>> = {
  slow: 504,
  huge: 502,
  bomb: 502,
  badgzip: 502,
  coding: 502,
  reset: 502,
  bigheaders: 502,
  forever: 502,
};

/** How long `slow` waits: longer than the fuzzed app's VAULT_PROXY_TIMEOUT_MS. */
export const PROXY_TIMEOUT_MS = 2_000;
const SLOW_MS = 4_500;

export const modeOf = (path: string): Mode => {
  const found = /\/mode\/([a-z0-9]+)/.exec(path)?.[1];
  return (MODES as readonly string[]).includes(found ?? '') ? (found as Mode) : 'echo';
};

const BOMB = gzipSync(Buffer.alloc(8 * 1024 * 1024));

export const startFuzzDestination = (): Promise<LocalHttpServer> =>
  startLocalHttpServer(async (request, response) => {
    const mode = modeOf(request.path);
    response.setHeader('x-destination', 'fuzz');
    switch (mode) {
      case 'slow':
        await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
        response.end('late');
        return;
      case 'huge':
        response.end(Buffer.alloc(1024 * 1024 + 1, 'a'));
        return;
      case 'bomb':
        response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        response.end(BOMB);
        return;
      case 'badgzip':
        response.writeHead(200, { 'content-encoding': 'gzip' });
        response.end(Buffer.from('\x1f\x8b\x08\x00not gzip at all', 'latin1'));
        return;
      case 'coding':
        response.writeHead(200, { 'content-encoding': 'compress' });
        response.end('x');
        return;
      case 'reset':
        response.socket?.destroy();
        return;
      case 'bigheaders':
        for (let i = 0; i < 40; i++) response.setHeader(`x-big-${i}`, 'b'.repeat(1000));
        response.end('big');
        return;
      case 'forever':
        await writeForever(response);
        return;
      case 'redirect':
        response.writeHead(302, { location: `/elsewhere?from=${encodeURIComponent(request.path)}` });
        response.end();
        return;
      case 'proxyerror':
        response.setHeader('SVC-PROXY-ERROR', 'true');
        break;
      case 'setcookie':
        response.setHeader('set-cookie', 'session=destination-cookie; HttpOnly');
        break;
      default:
        break;
    }
    const status = /^status(\d{3})$/.exec(mode)?.[1];
    response.writeHead(status ? Number(status) : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ method: request.method, path: request.path, headers: request.headers, body: request.body }));
  });
