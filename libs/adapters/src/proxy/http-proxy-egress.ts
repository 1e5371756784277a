// The ProxyEgress adapter: one request out over node:http(s) keep-alive agents, the answer read under one deadline and a cap.
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import type { EgressAnswer, EgressFailure, EgressRequest, HeaderLines, ProxyEgress } from '@vault/application/ports/proxy-egress';

export interface HttpProxyEgressOptions {
  /** One deadline for the whole exchange: DNS, connect, send, headers and body. */
  timeoutMs: number;
  /** Largest answer body, in bytes once decoded. */
  maxResponseBytes: number;
  /** Open connections per destination (host and port); more requests wait for one. */
  maxSockets?: number;
}

export const DEFAULT_PROXY_TIMEOUT_MS = 25_000;
export const DEFAULT_PROXY_MAX_RESPONSE_BYTES = 1_048_576;
const DEFAULT_MAX_SOCKETS = 256;

/** Request headers the adapter sets itself, whatever the caller's lines say. */
const ADAPTER_REQUEST_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'accept-encoding']);
/** Methods whose request has a meaning for a body: without one they send `content-length: 0`, not chunked framing. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const HOP_BY_HOP = [
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade',
];
/** Answer headers never passed back: hop-by-hop ones, cookies of the destination, and the body's framing and coding. */
const DROPPED_ANSWER_HEADERS = new Set([...HOP_BY_HOP, 'set-cookie', 'content-length', 'content-encoding']);

type Coding = 'gzip' | 'deflate' | 'br';
const CODINGS = new Map<string, Coding>([['gzip', 'gzip'], ['x-gzip', 'gzip'], ['deflate', 'deflate'], ['br', 'br']]);

/**
 * Sends each request once with plain `http.request` (so redirects are answered, never followed), asking for an
 * unencoded answer and still decoding gzip, deflate or br when a server compresses anyway. Never rejects and never
 * logs: every failure is one of the port's kinds, and its socket is destroyed rather than reused.
 */
export class HttpProxyEgress implements ProxyEgress {
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(options: HttpProxyEgressOptions) {
    this.timeoutMs = options.timeoutMs;
    this.maxResponseBytes = options.maxResponseBytes;
    // LIFO keeps the busiest sockets warm and lets the rest go idle and close.
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? DEFAULT_MAX_SOCKETS, scheduling: 'lifo' as const };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  send(request: EgressRequest): Promise<EgressAnswer> {
    const agent = request.url.protocol === 'https:' ? this.httpsAgent : this.httpAgent;
    return new Promise((resolve) => new Exchange(request, agent, this.timeoutMs, this.maxResponseBytes, resolve).start());
  }

  /** Destroys every pooled socket; requests still in flight answer `unreachable`. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}

/** One request and its answer; settles exactly once. */
class Exchange {
  private settled = false;
  private timer: NodeJS.Timeout | undefined;
  private outgoing: http.ClientRequest | undefined;
  private incoming: http.IncomingMessage | undefined;
  private decoder: zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress | undefined;
  private readonly chunks: Buffer[] = [];
  private decodedBytes = 0;
  private receivedBytes = 0;

  constructor(
    private readonly request: EgressRequest,
    private readonly agent: http.Agent,
    private readonly timeoutMs: number,
    private readonly maxBytes: number,
    private readonly resolve: (answer: EgressAnswer) => void,
  ) {}

  start(): void {
    this.timer = setTimeout(() => this.fail('timeout'), this.timeoutMs);
    const { url, method, body } = this.request;
    try {
      this.outgoing = (url.protocol === 'https:' ? https : http).request({
        agent: this.agent,
        protocol: url.protocol,
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? undefined : Number(url.port),
        method,
        path: `${url.pathname}${url.search}`,
        headers: requestHeaderArray(this.request),
      });
    } catch {
      // Node refuses header names or values it cannot write; nothing left the process.
      return this.fail('unreachable');
    }
    const outgoing = this.outgoing;
    outgoing.on('socket', (socket: Socket) => socket.setNoDelay(true));
    outgoing.on('response', (response) => this.read(response));
    outgoing.on('error', () => this.fail('unreachable'));
    outgoing.end(body ?? undefined);
  }

  private read(response: http.IncomingMessage): void {
    this.incoming = response;
    const coding = contentCoding(response.headers['content-encoding']);
    if (coding === undefined) return this.fail('unreachable');
    // Node undoes `chunked` only: a body framed with another transfer coding (`gzip, chunked`) would pass on still
    // coded, where nothing can check what it holds.
    const framing = response.headers['transfer-encoding'];
    if (framing !== undefined && framing.trim().toLowerCase() !== 'chunked') return this.fail('unreachable');
    // A compressed body is never much larger than its decoded form; the bound stops endless empty blocks.
    const receivedLimit = coding === null ? this.maxBytes : 2 * this.maxBytes + 1024;
    const declared = response.headers['content-length'];
    if (declared !== undefined && Number(declared) > receivedLimit) return this.fail('too_large');

    response.on('data', (chunk: Buffer) => {
      if (this.settled) return;
      this.receivedBytes += chunk.length;
      if (this.receivedBytes > receivedLimit) return this.fail('too_large');
      if (coding === null) return this.keep(chunk);
      const decoder = (this.decoder ??= this.openDecoder(coding, chunk[0]));
      if (!decoder.write(chunk)) {
        response.pause();
        decoder.once('drain', () => response.resume());
      }
    });
    response.on('end', () => (this.decoder ? this.decoder.end() : this.answer()));
    response.on('error', () => this.fail('unreachable'));
    response.on('close', () => {
      if (!response.complete) this.fail('unreachable');
    });
  }

  private openDecoder(coding: Coding, firstByte: number | undefined): NonNullable<Exchange['decoder']> {
    // `deflate` should be zlib-wrapped, but some servers send raw deflate; a zlib header's low nibble is 8.
    const decoder =
      coding === 'gzip' ? zlib.createGunzip()
      : coding === 'br' ? zlib.createBrotliDecompress()
      : firstByte !== undefined && (firstByte & 0x0f) === 0x08 ? zlib.createInflate()
      : zlib.createInflateRaw();
    decoder.on('data', (chunk: Buffer) => this.keep(chunk));
    decoder.on('end', () => this.answer());
    decoder.on('error', () => this.fail('unreachable'));
    return decoder;
  }

  private keep(chunk: Buffer): void {
    if (this.settled) return;
    this.decodedBytes += chunk.length;
    if (this.decodedBytes > this.maxBytes) return this.fail('too_large');
    this.chunks.push(chunk);
  }

  private answer(): void {
    const response = this.incoming;
    if (response === undefined || this.settled) return;
    this.settle({
      failed: null,
      status: response.statusCode ?? 502,
      headers: answerHeaders(response.rawHeaders),
      body: Buffer.concat(this.chunks, this.decodedBytes),
    });
  }

  private fail(failed: EgressFailure['failed']): void {
    if (this.settled) return;
    this.settle({ failed });
    // The connection is left mid-exchange, so it cannot go back to the pool.
    this.decoder?.destroy();
    this.incoming?.destroy();
    this.outgoing?.destroy();
  }

  private settle(answer: EgressAnswer): void {
    this.settled = true;
    clearTimeout(this.timer);
    this.chunks.length = 0;
    this.resolve(answer);
  }
}

/** The caller's lines less those the adapter owns, then `host`, `accept-encoding` and the body's length; flat, as Node takes them. */
const requestHeaderArray = ({ url, method, headers, body }: EgressRequest): string[] => {
  const flat = ['host', url.host];
  for (const [name, value] of headers) {
    if (!ADAPTER_REQUEST_HEADERS.has(name.toLowerCase())) flat.push(name, value);
  }
  flat.push('accept-encoding', 'identity');
  if (body !== null) flat.push('content-length', String(body.length));
  else if (BODY_METHODS.has(method.toUpperCase())) flat.push('content-length', '0');
  return flat;
};

/** null: not encoded; undefined: an encoding this adapter cannot decode (an unknown one, or several stacked). */
const contentCoding = (header: string | undefined): Coding | null | undefined => {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return null;
  return codings.length === 1 ? CODINGS.get(codings[0]) : undefined;
};

const answerHeaders = (raw: string[]): HeaderLines => {
  const lines: HeaderLines = [];
  for (let i = 0; i + 1 < raw.length; i += 2) lines.push([raw[i].toLowerCase(), raw[i + 1]]);
  const dropped = new Set(DROPPED_ANSWER_HEADERS);
  for (const [name, value] of lines) {
    if (name === 'connection') value.split(',').forEach((token) => dropped.add(token.trim().toLowerCase()));
  }
  return lines.filter(([name]) => !dropped.has(name));
};
