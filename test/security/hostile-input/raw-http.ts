// HTTP/1.1 spoken by hand, for requests no HTTP client would send: header values with line breaks or NUL, duplicate
// and oversized headers, raw bytes in the path, contradicting framing. One request per connection.
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Names lower-cased; a repeated header's values joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
  /** The head as received, for failure messages. */
  head: string;
}

const decodeChunked = (body: Buffer): Buffer => {
  const out: Buffer[] = [];
  let at = 0;
  while (at < body.length) {
    const end = body.indexOf('\r\n', at);
    if (end < 0) break;
    const size = parseInt(body.subarray(at, end).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(body.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
  return Buffer.concat(out);
};

/** Parses one answer, past any interim 1xx (a 100 Continue); null when the server closed without a whole head. */
export const parseAnswer = (bytes: Buffer): RawAnswer | null => {
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 16).toString('latin1'))) {
    const end = bytes.indexOf('\r\n\r\n');
    if (end < 0) return null;
    bytes = bytes.subarray(end + 4);
  }
  const split = bytes.indexOf('\r\n\r\n');
  if (split < 0) return null;
  const head = bytes.subarray(0, split).toString('latin1');
  const [statusLine, ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  if (!Number.isFinite(status)) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  let body = bytes.subarray(split + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = decodeChunked(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status, headers, body, head };
};

/**
 * Sends `request` as it is to 127.0.0.1:`port` and reads until the server closes (or `timeoutMs`); `halfClose` ends the
 * sending side after the request (a body shorter than its Content-Length then ends there).
 */
export const rawRequest = (port: number, request: Buffer, options: { timeoutMs?: number; halfClose?: boolean } = {}): Promise<RawAnswer | null> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1');
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseAnswer(Buffer.concat(chunks)));
    };
    const timer = setTimeout(done, options.timeoutMs ?? 20_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', done);
    socket.on('close', done);
    // The server may answer (a 413, a 400) and close before the whole body is written.
    socket.on('error', done);
    socket.write(request, () => {
      if (options.halfClose) socket.end();
    });
  });
