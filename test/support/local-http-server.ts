// A real HTTP server on 127.0.0.1 for the sandbox's fetch tests, recording what reached it.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface LocalHttpServer {
  /** `127.0.0.1:<port>`, as an allowed-hosts entry. */
  host: string;
  url(path: string): string;
  received: ReceivedRequest[];
  /** Responses the client went away from before they ended (the server saw the connection close). */
  abandoned: string[];
  /** Requests being answered right now, and the most there ever were at once. */
  inFlight: number;
  peakInFlight: number;
  close(): Promise<void>;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

export const startLocalHttpServer = async (handler: Handler): Promise<LocalHttpServer> => {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      local.received.push(received);
      local.inFlight++;
      local.peakInFlight = Math.max(local.peakInFlight, local.inFlight);
      response.on('close', () => {
        local.inFlight--;
        if (!response.writableFinished) local.abandoned.push(received.path);
      });
      void Promise.resolve(handler(received, response)).catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const local: LocalHttpServer = {
    host: `127.0.0.1:${port}`,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: [],
    abandoned: [],
    inFlight: 0,
    peakInFlight: 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return local;
};

/** Writes chunks of `size` bytes until the client goes away; resolves then. */
export const writeForever = (response: ServerResponse, size = 64 * 1024): Promise<void> =>
  new Promise((resolve) => {
    const chunk = Buffer.alloc(size, 'x');
    const write = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', write);
    };
    response.on('close', () => resolve());
    response.writeHead(200, { 'content-type': 'text/plain' });
    write();
  });
