// Hostile invocations of ANY /proxy, written byte by byte (raw-http.ts): methods, paths (dot segments, encoded
// slashes, double slashes, raw and invalid UTF-8, very long), queries (svc-proxy-key repeated and encoded), the vault's
// own headers (missing, duplicated, oversized, unknown, both routes at once), header values with line breaks, NUL and
// raw bytes, bodies (huge, deeply nested, invalid UTF-8, of every media type, gzip and deflate, a gzip bomb, framing
// that contradicts itself) and detokenization expressions of a token the invoking key may use but not read.
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { nestedText, plainSecretText, urlSecretText } from './hostile-values';
import { MODES, type Mode } from './fuzz-destination';

/** A reference's mark in a request (references.ts), replaced by its value when sent. */
type Mark = '⟨proxyKey⟩' | '⟨anonymousProxyKey⟩' | '⟨useKey⟩' | '⟨privateKey⟩' | '⟨adminKey⟩' | '⟨proxyToken⟩' | '⟨destination⟩' | '⟨unreachable⟩';

export interface ProxyRequest {
  method: string;
  /** Up to the query, as written on the request line (marks not allowed). */
  target: string;
  /** Without `?`; may hold marks. */
  query: string;
  /** Raw header lines, in order; values may hold marks, line breaks and any byte (written as Latin-1). */
  headers: Array<[string, string]>;
  body: ProxyBody | null;
  /** Secrets it sends (in the path, query, headers or body): none may reach a log, nor an answer of the vault's own. */
  secrets: string[];
  /** Whom the SVC-API-KEY header names (the first one, when repeated). */
  caller: 'use' | 'private' | 'admin' | 'secret' | 'none';
  /** What the destination is asked to do (the path's `/mode/<mode>`). */
  mode: Mode;
  /** Routed where an unreachable destination is (an SVC-PROXY-URL on the allowed list with nothing listening). */
  unreachable: boolean;
  what: string;
}

export interface ProxyBody {
  /** May hold marks. */
  text: string;
  /** How the bytes are written: UTF-8, with invalid UTF-8 added, compressed, or a bomb. */
  coding: 'utf8' | 'invalid-utf8' | 'gzip' | 'deflate' | 'bomb' | 'garbage-gzip';
  /** `both`: Content-Length and chunked; `codings`: chunked under another transfer coding (`gzip, chunked`). */
  framing: 'length' | 'chunked' | 'both' | 'short-length' | 'codings';
}

const MARKED_KEYS: Record<ProxyRequest['caller'], Mark | null> = { use: '⟨useKey⟩', private: '⟨privateKey⟩', admin: '⟨adminKey⟩', secret: null, none: null };

const secretIn = (make: (secret: string) => string) => plainSecretText.map((secret) => ({ text: make(secret), secrets: [secret] }));
const plain = (...texts: string[]) => fc.constantFrom(...texts).map((text) => ({ text, secrets: [] as string[] }));

/** What follows `/proxy`: a destination mode now and then, and every way to write a path an attacker knows. */
const pathArb = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom(...MODES).map((mode) => ({ text: `/mode/${mode}`, secrets: [] as string[] })) },
  { weight: 4, arbitrary: plain('', '/', '/a/b', '/a/b/', '/v1/charges') },
  {
    weight: 4,
    arbitrary: plain(
      '/../x',
      '/..',
      '/a/../../x',
      '/%2e%2e/x',
      '/%2E%2E%2Fx',
      '/.%2e/x',
      '/a%2fb',
      '/a%2F..%2F..%2Fx',
      '//double//slashes',
      '/./a',
      '/x/..;/y',
      '/%00',
      '/%ff%fe',
      '/%',
      '/%zz',
      '/a\\..\\x',
      '/\u00e9t\u00e9',
      Buffer.from('/été/😀', 'utf8').toString('latin1'),
      '/\u00ff\u00fe',
      '/mode/echo/../../slow',
      `/${'a'.repeat(8_000)}`,
      `/${'a/'.repeat(12_000)}`,
    ),
  },
  { weight: 2, arbitrary: urlSecretText.map((s) => ({ text: `/mode/echo/${encodeURIComponent(s)}`, secrets: [s] })) },
);

/** The query: plain, or svc-proxy-key given there, repeated, spelled otherwise or encoded, with secrets. */
const queryArb = fc.oneof(
  { weight: 4, arbitrary: plain('', 'a=1', 'a=1&a=2', '&&', '=', 'q=%', 'q=%ff') },
  { weight: 2, arbitrary: secretIn((s) => `q=${s}&svc=${s}`) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom('svc-proxy-key', 'SVC-PROXY-KEY', 'svc%2Dproxy%2Dkey', 'Svc-Proxy-Key'),
        fc.constantFrom<Mark | 'secret' | ''>('⟨proxyKey⟩', '⟨anonymousProxyKey⟩', 'secret', ''),
        fc.constantFrom('', '&svc-proxy-key=other', '&svc-proxy-key=⟨anonymousProxyKey⟩', '&a=1'),
        plainSecretText,
      )
      .map(([name, value, more, secret]) => ({
        text: `${name}=${value === 'secret' ? secret : value}${more}`,
        secrets: value === 'secret' ? [secret] : [],
      })),
  },
);

type Route = { lines: Array<[string, string]>; secrets: string[]; unreachable: boolean; what: string };

/** How the request names its proxy: SVC-PROXY-KEY, SVC-PROXY-URL, both, repeated, unknown, oversized, or not at all. */
const routeArb: fc.Arbitrary<Route> = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom<Mark>('⟨proxyKey⟩', '⟨anonymousProxyKey⟩').map((key) => ({ lines: [['SVC-PROXY-KEY', key]], secrets: [], unreachable: false, what: `key ${key}` }) as Route) },
  { weight: 5, arbitrary: fc.constant<Route>({ lines: [['SVC-PROXY-URL', '⟨destination⟩/eph']], secrets: [], unreachable: false, what: 'ephemeral' }) },
  { weight: 1, arbitrary: fc.constant<Route>({ lines: [['SVC-PROXY-URL', '⟨unreachable⟩/gone']], secrets: [], unreachable: true, what: 'unreachable' }) },
  { weight: 2, arbitrary: fc.constant<Route>({ lines: [], secrets: [], unreachable: false, what: 'no route' }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'secret key',
          'repeated key',
          'key and url',
          'empty key',
          'huge key',
          'unicode key',
          'url not allowed',
          'url with credentials',
          'file url',
          'secret url',
          'huge url',
          'repeated url',
        ),
        plainSecretText,
      )
      .map(([what, secret]): Route => {
        const lines: Record<string, Array<[string, string]>> = {
          'secret key': [['SVC-PROXY-KEY', secret]],
          'repeated key': [['SVC-PROXY-KEY', '⟨proxyKey⟩'], ['SVC-PROXY-KEY', secret]],
          'key and url': [['SVC-PROXY-KEY', '⟨proxyKey⟩'], ['SVC-PROXY-URL', '⟨destination⟩/eph']],
          'empty key': [['SVC-PROXY-KEY', '']],
          'huge key': [['SVC-PROXY-KEY', secret.repeat(400)]],
          'unicode key': [['SVC-PROXY-KEY', `\u00e9${secret}\u00ff`]],
          'url not allowed': [['SVC-PROXY-URL', `http://127.0.0.2:9/${secret}`]],
          'url with credentials': [['SVC-PROXY-URL', `http://user:${secret}@127.0.0.1:1/x`]],
          'file url': [['SVC-PROXY-URL', `file:///etc/passwd?${secret}`]],
          'secret url': [['SVC-PROXY-URL', secret]],
          'huge url': [['SVC-PROXY-URL', `⟨destination⟩/${secret.repeat(300)}`]],
          'repeated url': [['SVC-PROXY-URL', '⟨destination⟩/eph'], ['SVC-PROXY-URL', `http://127.0.0.2:9/${secret}`]],
        };
        return { lines: lines[what], secrets: [secret], unreachable: false, what };
      }),
  },
);

type KeyLines = { lines: Array<[string, string]>; secrets: string[]; caller: ProxyRequest['caller'] };

const keyArb: fc.Arbitrary<KeyLines> = fc.oneof(
  { weight: 14, arbitrary: fc.constant<KeyLines>({ lines: [['SVC-API-KEY', '⟨useKey⟩']], secrets: [], caller: 'use' }) },
  { weight: 2, arbitrary: fc.constant<KeyLines>({ lines: [], secrets: [], caller: 'none' }) },
  { weight: 1, arbitrary: fc.constant<KeyLines>({ lines: [['SVC-API-KEY', '⟨privateKey⟩']], secrets: [], caller: 'private' }) },
  { weight: 1, arbitrary: fc.constant<KeyLines>({ lines: [['SVC-API-KEY', '⟨adminKey⟩']], secrets: [], caller: 'admin' }) },
  { weight: 1, arbitrary: plainSecretText.map((s): KeyLines => ({ lines: [['SVC-API-KEY', s]], secrets: [s], caller: 'secret' })) },
  // Repeated, the header reads as both values joined: no key at all.
  { weight: 1, arbitrary: plainSecretText.map((s): KeyLines => ({ lines: [['SVC-API-KEY', '⟨useKey⟩'], ['SVC-API-KEY', s]], secrets: [s], caller: 'secret' })) },
  { weight: 1, arbitrary: plainSecretText.map((s): KeyLines => ({ lines: [['SVC-API-KEY', s], ['SVC-API-KEY', '⟨useKey⟩']], secrets: [s], caller: 'secret' })) },
);

/** Other header lines: detokenization expressions, hop-by-hop names, line breaks and raw bytes, huge values. */
type Lines = { lines: Array<[string, string]>; secrets: string[] };

const header = (name: string) => ({ text, secrets }: { text: string; secrets: string[] }): Lines => ({ lines: [[name, text]], secrets });

const extraHeaderArb: fc.Arbitrary<Lines> = fc.oneof(
  {
    weight: 10,
    arbitrary: plain('{{ ⟨proxyToken⟩ }}', 'Bearer {{ ⟨proxyToken⟩ }}', '{{ token: ⟨proxyToken⟩ | slice: 0, 5 }}', '{{ 00000000-0000-4000-8000-000000000000 }}', '{{ ⟨proxyToken⟩').map(
      header('X-Card'),
    ),
  },
  { weight: 10, arbitrary: fc.constant<Lines>({ lines: [], secrets: [] }) },
  { weight: 4, arbitrary: secretIn((s) => s).map(header('X-Note')) },
  { weight: 1, arbitrary: secretIn((s) => `\u00e9\u00ff${s}`).map(header('X-Latin1')) },
  // Written as UTF-8 bytes: é, ✓ and an emoji.
  { weight: 1, arbitrary: secretIn((s) => Buffer.from(`é✓😀${s}`, 'utf8').toString('latin1')).map(header('X-Utf8')) },
  { weight: 1, arbitrary: plain('close, X-Card', 'keep-alive').map(({ text }): Lines => ({ lines: [['Connection', text], ['X-Card', '{{ ⟨proxyToken⟩ }}']], secrets: [] })) },
  { weight: 1, arbitrary: fc.constant<Lines>({ lines: [['Expect', '100-continue'], ['Upgrade', 'websocket'], ['Proxy-Authorization', 'Basic eA=='], ['Service-Worker', 'script']], secrets: [] }) },
  // What the HTTP parser refuses before the vault sees anything: line breaks and NUL in a value, a folded line, a head too large.
  { weight: 1, arbitrary: secretIn((s) => `${s}\r\nX-Injected: ${s}`).map(header('X-Crlf')) },
  { weight: 1, arbitrary: secretIn((s) => `${s}\rmore`).map(header('X-Cr')) },
  { weight: 1, arbitrary: secretIn((s) => `${s}\u0000`).map(header('X-Nul')) },
  { weight: 1, arbitrary: secretIn((s) => s.repeat(1_000)).map(header('X-Huge')) },
  { weight: 1, arbitrary: secretIn((s) => s).map(({ text, secrets }): Lines => ({ lines: [['X-Fold', 'a'], [' ', text]], secrets })) },
);

const MEDIA = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/vnd.api+json', ''];

/** Bodies: expressions, huge, deep, invalid, compressed, a bomb; framed right or not. */
const bodyArb = fc.oneof(
  { weight: 6, arbitrary: plain('{"card":{"number":"4111111111111111"},"x":"{{ ⟨proxyToken⟩ }}","y":"a {{ token: ⟨proxyToken⟩ }} b"}', 'x={{ ⟨proxyToken⟩ }}&y=1', '{{ ⟨proxyToken⟩ }}', '{"z":"{{ ⟨proxyToken⟩ | json: \'$.a\' }}"}', '{"missing":"{{ 00000000-0000-4000-8000-000000000000 }}"}') },
  { weight: 2, arbitrary: secretIn((s) => JSON.stringify({ note: s, card: { number: s } })) },
  { weight: 1, arbitrary: fc.constantFrom(nestedText(100_000, 'array'), nestedText(60_000, 'object'), `{"a":${nestedText(70, 'object')}}`).map((text) => ({ text, secrets: [] as string[] })) },
  // Written as a mark (expanded when sent), so that a failure's report stays readable.
  { weight: 1, arbitrary: fc.constantFrom(1024 * 1024 + 1, 1024 * 1024 - 64).map((n) => ({ text: `"⟨a×${n - 2}⟩"`, secrets: [] as string[] })) },
  { weight: 1, arbitrary: fc.constant({ text: JSON.stringify(Array.from({ length: 101 }, () => '{{ ⟨proxyToken⟩ }}')), secrets: [] as string[] }) },
);

/** Mostly a body the vault reads; now and then one it must refuse, or take apart with care. */
const often = <T>(usual: T, ...others: readonly T[]) => fc.oneof({ weight: 3 * others.length, arbitrary: fc.constant(usual) }, { weight: others.length, arbitrary: fc.constantFrom(...others) });
const bodyFormArb = fc.record({
  coding: often<ProxyBody['coding']>('utf8', 'invalid-utf8', 'gzip', 'deflate', 'bomb', 'garbage-gzip'),
  framing: often<ProxyBody['framing']>('length', 'chunked', 'both', 'short-length', 'codings'),
  media: often(MEDIA[0], ...MEDIA.slice(1)),
  encodingHeader: often('auto', 'none', 'compress', 'gzip, gzip', 'br'),
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export const proxyRequestArb: fc.Arbitrary<ProxyRequest> = fc
  .record({
    method: fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'CONNECT', 'FOO') }),
    prefix: fc.oneof({ weight: 16, arbitrary: fc.constant('/proxy') }, { weight: 1, arbitrary: fc.constantFrom('/PROXY', '/Proxy', '/proxy;x', '/proxy%2F', '//proxy') }),
    path: pathArb,
    query: queryArb,
    route: routeArb,
    key: keyArb,
    extra: fc.array(extraHeaderArb, { maxLength: 2 }),
    body: fc.option(fc.tuple(bodyArb, bodyFormArb), { freq: 2 }),
  })
  .map(({ method, prefix, path, query, route, key, extra, body }) => {
    const headers: Array<[string, string]> = [...key.lines, ...route.lines, ...extra.flatMap((e) => e.lines)];
    let proxyBody: ProxyBody | null = null;
    if (body) {
      const [{ text }, form] = body;
      if (form.media) headers.push(['Content-Type', form.media]);
      const coding = form.coding === 'bomb' || form.coding === 'garbage-gzip' ? 'gzip' : form.coding === 'gzip' || form.coding === 'deflate' ? form.coding : null;
      const header = form.encodingHeader === 'auto' ? coding : form.encodingHeader === 'none' ? null : form.encodingHeader;
      if (header) headers.push(['Content-Encoding', header]);
      proxyBody = { text, coding: form.coding, framing: form.framing };
    }
    const secrets = [...path.secrets, ...query.secrets, ...route.secrets, ...key.secrets, ...extra.flatMap((e) => e.secrets), ...(body ? body[0].secrets : [])];
    const request: ProxyRequest = {
      method,
      target: prefix + path.text,
      query: query.text,
      headers,
      body: proxyBody,
      secrets,
      caller: key.caller,
      mode: (MODES as readonly string[]).find((m) => path.text === `/mode/${m}`) as Mode | undefined ?? 'echo',
      unreachable: route.unreachable,
      what: `${method} ${prefix}${path.text.slice(0, 60)}${query.text ? `?${query.text.slice(0, 60)}` : ''} [${key.caller}, ${route.what}${extra.length ? `, ${extra.map((e) => e.lines.map(([n]) => n).join('+')).join(', ')}` : ''}]${body ? ` body ${body[1].media || '(no type)'} ${body[1].coding} ${body[1].framing} ${body[0].text.length} chars` : ''}`,
    };
    return request;
  });

/** Whom a request's SVC-API-KEY names, as a mark (null: none, or a secret). */
export const callerMark = (request: ProxyRequest): Mark | null => MARKED_KEYS[request.caller];

/** `⟨a×1000⟩` → a thousand `a`. */
const expand = (text: string) => text.replace(/⟨(.)×(\d+)⟩/g, (_mark, char: string, n: string) => char.repeat(Number(n)));

/** The body's bytes as its coding says. */
export const bodyBytes = (body: ProxyBody, text: string): Buffer => {
  const utf8 = Buffer.from(expand(text), 'utf8');
  switch (body.coding) {
    case 'utf8':
      return utf8;
    case 'invalid-utf8':
      return Buffer.concat([utf8.subarray(0, Math.floor(utf8.length / 2)), Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]), utf8.subarray(Math.floor(utf8.length / 2))]);
    case 'gzip':
      return gzipSync(utf8);
    case 'deflate':
      return deflateSync(utf8);
    case 'bomb':
      return BOMB;
    case 'garbage-gzip':
      return Buffer.from('\x1f\x8b\x08\x00garbage', 'latin1');
  }
};

const BOMB = gzipSync(Buffer.alloc(16 * 1024 * 1024, '{'));

/** The request's bytes, its marks replaced by `resolve`. */
export const requestBytes = (request: ProxyRequest, resolve: (text: string) => string): Buffer => {
  const query = resolve(request.query);
  const lines = [`${request.method} ${request.target}${query ? `?${query}` : ''} HTTP/1.1`, 'Host: vault', 'Connection: close'];
  for (const [name, value] of request.headers) lines.push(name === ' ' ? ` ${resolve(value)}` : `${name}: ${resolve(value)}`);
  let body: Buffer = Buffer.alloc(0);
  if (request.body) {
    body = bodyBytes(request.body, resolve(request.body.text));
    const framing = request.body.framing;
    if (framing === 'length' || framing === 'both') lines.push(`Content-Length: ${body.length}`);
    if (framing === 'short-length') lines.push(`Content-Length: ${body.length + 10}`);
    if (framing === 'chunked' || framing === 'both' || framing === 'codings') {
      lines.push(framing === 'codings' ? 'Transfer-Encoding: gzip, chunked' : 'Transfer-Encoding: chunked');
      body = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
    }
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
};
