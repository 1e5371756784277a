// The destination of the proxy phase and of the proxy rows of the worst-case bodies: a minimal node:http server in a
// process of its own, so that what it costs is never counted in the service's process. Routes (any method):
// - /echo…: answers 200 with the request's body and Content-Type, as they came;
// - /answer/<kind>?bytes=N: answers 200 with a body of exactly N bytes (at most 4 MiB) of one kind: `json` (an array
//   of strings of words, as an API answers: every word of six letters or more reads as a base64 run), `text` (the same
//   words as one plain text), `escapes`
//   (text of %-encodings of %-encodings, HTML character references and \u escapes: every decoding the flow-back guard
//   undoes, at once and each kind alone) or `base64` (one base64 run of base64 of base64 of text);
// - anything else: reads the body and answers 200 with the raw baseline's small JSON body (the acknowledgement).
// Prints {"msg":"proxy destination listening","port":N} on stdout once listening on 127.0.0.1 (PORT, default 0).
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

const ACK = Buffer.from(JSON.stringify({ pagination: { total_items: 0, page_number: 1, page_size: 20, total_pages: 0 }, data: [] }));
const MAX_ANSWER = 4 * 1024 * 1024;

/** `bytes` bytes of words of 3 to 10 lowercase letters, one space apart: what every string of an answer holds. */
export const words = (bytes, seed = 1) => {
  let state = seed >>> 0 || 1;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  let out = '';
  while (out.length < bytes) {
    const length = 3 + ((next() >>> 16) % 8);
    for (let i = 0; i < length; i++) out += String.fromCharCode(97 + ((next() >>> 16) % 26));
    out += ' ';
  }
  return out.slice(0, bytes);
};

/** A JSON array of strings of words, exactly `bytes` bytes long (each string `length` characters but the last). */
export const jsonOfWords = (bytes, length = 100) => {
  const items = [];
  let used = 2; // []
  for (let i = 0; ; i++) {
    const room = bytes - used - (i > 0 ? 1 : 0) - 2; // comma, quotes
    if (room < 1) break;
    const text = words(Math.min(length, room), i + 1);
    items.push(JSON.stringify(text));
    used += text.length + 2 + (i > 0 ? 1 : 0);
    if (room <= length) break;
  }
  const out = `[${items.join(',')}]`;
  return out + ' '.repeat(Math.max(0, bytes - out.length));
};

const ANSWERS = {
  json: (bytes) => ({ type: 'application/json', body: jsonOfWords(bytes) }),
  text: (bytes) => ({ type: 'text/plain; charset=utf-8', body: words(bytes) }),
  // Decoded all at once: `%2541` → `%41` → `A` and the rest at the first pass; each kind alone differs from that.
  escapes: (bytes) => ({ type: 'text/plain; charset=utf-8', body: repeatTo('%2541&#66;\\u0043&amp;#68; ', bytes) }),
  base64: (bytes) => {
    let text = words(bytes);
    for (let i = 0; i < 3; i++) text = Buffer.from(text).toString('base64');
    return { type: 'text/plain; charset=utf-8', body: text.slice(0, bytes).replace(/=+$/, '') };
  },
};

const repeatTo = (unit, bytes) => unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);

const cache = new Map();
const answer = (kind, bytes) => {
  const key = `${kind}:${bytes}`;
  if (!cache.has(key)) {
    const { type, body } = ANSWERS[kind](bytes);
    const buffer = Buffer.from(body);
    cache.set(key, { type, body: buffer.length >= bytes ? buffer.subarray(0, bytes) : Buffer.concat([buffer, Buffer.alloc(bytes - buffer.length, 0x20)]) });
  }
  return cache.get(key);
};

// Imported (for its body builders) it starts nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url, 'http://destination');
      const kind = /^\/answer\/([a-z0-9]+)$/.exec(url.pathname)?.[1];
      if (url.pathname.startsWith('/echo')) {
        const body = Buffer.concat(chunks);
        res.writeHead(200, { 'Content-Type': req.headers['content-type'] ?? 'application/octet-stream', 'Content-Length': body.length });
        return res.end(body);
      }
      if (kind !== undefined) {
        const bytes = Number(url.searchParams.get('bytes') ?? 1024);
        if (!Object.hasOwn(ANSWERS, kind) || !Number.isInteger(bytes) || bytes < 1 || bytes > MAX_ANSWER) {
          res.writeHead(400, { 'Content-Type': 'text/plain' });
          return res.end('unknown answer kind or size');
        }
        const { type, body } = answer(kind, bytes);
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
        return res.end(body);
      }
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': ACK.length });
      res.end(ACK);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ msg: 'proxy destination listening', port: server.address().port }) + '\n');
  });
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => server.close(() => process.exit(0)) && server.closeAllConnections());
}
