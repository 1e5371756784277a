// The leak property's proxy destination: it answers every request with what it was sent (the body, and the values of
// the headers the caller set), in every encoding "What flows back" names and some layered ones, in its body and in its
// answer's headers, with the status and media type the request's path asks for. That is what an echoing or hostile
// destination does; the vault's guard stands between it and the caller. It keeps each answer, so the property can tell
// whether the caller got it untouched.
import { startLocalHttpServer, type LocalHttpServer, type ReceivedRequest } from '../../support/local-http-server';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const each = (text: string, f: (code: number) => string) => [...text].map((c) => f(c.codePointAt(0)!)).join('');

/** Encodings of a text, by name; each hands back all of it (a guard cannot find a value in a slice of it). */
export const ECHO_ENCODINGS = {
  as_is: (s: string) => s,
  upper: (s: string) => s.toUpperCase(),
  lower: (s: string) => s.toLowerCase(),
  // What separates the parts of a card number, an SSN or a phone number: the delimiters "What flows back" means.
  no_delimiters: (s: string) => s.replace(/[\s\-./()_+,]/g, ''),
  spaced: (s: string) => [...s].join(' '),
  dotted: (s: string) => [...s].join('.'),
  json: (s: string) => JSON.stringify(s),
  json_unicode: (s: string) => each(s, (c) => (c > 0xffff ? String.fromCodePoint(c) : `\\u${c.toString(16).padStart(4, '0')}`)),
  uri: (s: string) => encodeURIComponent(s),
  percent_all: (s: string) => [...Buffer.from(s, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  form: (s: string) => new URLSearchParams({ v: s }).toString(),
  html_decimal: (s: string) => each(s, (c) => `&#${c};`),
  html_hex: (s: string) => each(s, (c) => `&#x${c.toString(16)};`),
  hex,
  hex_upper: (s: string) => hex(s).toUpperCase(),
  base64: b64,
  base64url: b64url,
  base64_shifted_1: (s: string) => b64(`<${s}>`),
  base64_shifted_2: (s: string) => b64url(`<<${s}`),
  base64_embedded: (s: string) => `seen:${b64(`value=${s};`)}:end`,
  base64_nested: (s: string) => b64(b64(s)),
  base64url_nested: (s: string) => b64url(b64(`;${s}`)),
  base64_of_uri: (s: string) => b64(encodeURIComponent(s)),
  uri_of_base64: (s: string) => encodeURIComponent(b64(s)),
  json_of_base64: (s: string) => JSON.stringify(b64(s)),
  base64_of_json: (s: string) => b64(JSON.stringify({ v: s })),
  base64_of_hex: (s: string) => b64(hex(s)),
  html_of_base64url: (s: string) => each(b64url(s), (c) => `&#${c};`),
  // As MIME writes it, 76 characters a line: a value across a line break.
  base64_lines: (s: string) => b64(`mime:${s}`).replace(/(.{76})(?=.)/g, '$1\r\n'),
} as const;

/** Encodings the guard does not undo (KNOWN_GAPS in command-mix.ts), by gap. */
export const GAP_ENCODINGS = {
  // The guard reads hex only as the encoding of a value itself, not of its other forms.
  'proxy-hex-outside': {
    hex_of_no_delimiters: (s: string) => hex(s.replace(/[\s\-./()_+,]/g, '')),
    hex_of_base64: (s: string) => hex(b64(s)),
    hex_of_uri: (s: string) => hex(encodeURIComponent(s)),
  },
  // Every character but letters and digits taken out: `@`, `:`, `#`, quotes and braces are no delimiters to the guard.
  'proxy-punctuation': {
    letters_and_digits: (s: string) => s.replace(/[^A-Za-z0-9]/g, ''),
  },
} as const;
type GapEncodings = (typeof GAP_ENCODINGS)[keyof typeof GAP_ENCODINGS];

export type EchoEncoding = keyof typeof ECHO_ENCODINGS | { [G in keyof typeof GAP_ENCODINGS]: keyof (typeof GAP_ENCODINGS)[G] }[keyof typeof GAP_ENCODINGS];
const ALL: Record<string, (s: string) => string> = Object.assign({}, ECHO_ENCODINGS, ...Object.values(GAP_ENCODINGS as Record<string, GapEncodings>));
export const BODY_ENCODINGS = Object.keys(ECHO_ENCODINGS) as EchoEncoding[];
/** The encodings of the gaps put back into a run. */
export const gapEncodings = (gaps: Iterable<string>): EchoEncoding[] =>
  [...gaps].flatMap((gap) => Object.keys((GAP_ENCODINGS as Record<string, object>)[gap] ?? {})) as EchoEncoding[];

export type EchoMedia = 'json' | 'text' | 'html' | 'octet';
const MEDIA_TYPES: Record<EchoMedia, string> = {
  json: 'application/json',
  text: 'text/plain; charset=utf-8',
  html: 'text/html',
  octet: 'application/octet-stream',
};

/** What the request asks of the destination, written as the path after the proxy's: `/echo/<status>/<media>/<encodings>/<call>`. */
export interface EchoAsk {
  status: number;
  media: EchoMedia;
  /** Encodings in the body (every text the request carried) and, shorter ones, in the answer's headers. */
  body: readonly EchoEncoding[];
  headers: readonly EchoEncoding[];
  call: string;
}

const list = (encodings: readonly EchoEncoding[]) => encodings.join(',') || '-';

export const echoPath = (ask: EchoAsk): string => `/echo/${ask.status}/${ask.media}/${list(ask.body)}/${list(ask.headers)}/${ask.call}`;

/** The headers whose values the destination hands back: those the property's callers set. */
export const ECHOED_HEADER = /^(x-leak-|authorization$)/;

export interface EchoedAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** What reached the destination. */
  received: ReceivedRequest;
}

export interface EchoDestination extends LocalHttpServer {
  /** The answer given to a call, taken (each is asked for once). */
  take(call: string): EchoedAnswer | undefined;
}

const HEADER_SAFE = /^[\x20-\x7e]{0,1500}$/;

const parseAsk = (path: string): EchoAsk | null => {
  const parts = path.split('?')[0].split('/');
  const at = parts.indexOf('echo');
  if (at < 0 || parts.length < at + 6) return null;
  const list = (text: string) => (text === '-' ? [] : (text.split(',').filter((e) => e in ALL) as EchoEncoding[]));
  return { status: Number(parts[at + 1]) || 200, media: parts[at + 2] as EchoMedia, body: list(parts[at + 3]), headers: list(parts[at + 4]), call: parts[at + 5] };
};

export const echoAnswerOf = (request: ReceivedRequest, ask: EchoAsk): { headers: Record<string, string>; body: Buffer } => {
  const texts: Array<[string, string]> = [['body', request.body]];
  for (const [name, value] of Object.entries(request.headers)) {
    if (ECHOED_HEADER.test(name)) texts.push([name, Array.isArray(value) ? value.join(', ') : String(value)]);
  }
  const encoded = texts.map(([name, text]) => [name, Object.fromEntries(ask.body.map((e) => [e, ALL[e](text)]))] as const);
  let parsed: unknown = null;
  try {
    parsed = request.body ? JSON.parse(request.body) : null;
  } catch {
    parsed = null;
  }
  const answer = { echo: parsed, received: { method: request.method, path: request.path }, encoded: Object.fromEntries(encoded) };
  const text =
    ask.media === 'json'
      ? JSON.stringify(answer)
      : [`echo: ${JSON.stringify(parsed)}`, ...encoded.flatMap(([name, byEncoding]) => Object.entries(byEncoding).map(([e, v]) => `${name} ${e}: ${v}`))].join('\n');
  const headers: Record<string, string> = { 'content-type': MEDIA_TYPES[ask.media], 'x-destination': 'echo' };
  texts.forEach(([, text], i) => {
    for (const e of ask.headers) {
      const value = ALL[e](text);
      if (HEADER_SAFE.test(value)) headers[`x-echo-${i}-${e.replace(/_/g, '-')}`] = value;
    }
  });
  if (ask.status >= 300 && ask.status < 400) headers.location = `/back?body=${encodeURIComponent(request.body).slice(0, 1000)}`;
  return { headers, body: Buffer.from(text, 'utf8') };
};

export const startEchoDestination = async (): Promise<EchoDestination> => {
  const answers = new Map<string, EchoedAnswer>();
  const server = await startLocalHttpServer((request, response) => {
    const ask = parseAsk(request.path) ?? { status: 200, media: 'json' as const, body: ['as_is' as const], headers: [], call: 'none' };
    const { headers, body } = echoAnswerOf(request, ask);
    answers.set(ask.call, { status: ask.status, headers, body, received: request });
    response.writeHead(ask.status, headers);
    response.end(body);
  });
  return {
    ...server,
    take(call: string) {
      const answer = answers.get(call);
      answers.delete(call);
      return answer;
    },
  };
};
