// The leak property's reactor: a private formula whose code copies the detokenized args into `raw` in the encoding
// the args name (as is, JSON, URL-encoded, base64, base64url, without delimiters, upper-cased, inside a longer string,
// as an object key, and some of these combined), or throws them in its error message, optionally through a
// destination that echoes them, and optionally tokenizes them. That is what a careless or hostile formula does; "What
// flows back" is the vault's backstop against it. The same code runs here, in Node, to predict the outcome where
// nothing needs replacing.
import { startLocalHttpServer, type LocalHttpServer } from '../../support/local-http-server';

export const ENCODINGS = [
  'as_is',
  'json',
  'uri',
  'base64',
  'base64url',
  'no_delimiters',
  'upper',
  'embedded',
  'key',
  'uri_json',
  'base64_embedded',
  'thrown',
] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** What the reactor's `tokenize` is made of: one `token` request per value in a container, or the values as leaves. */
export type TokenizeSpec = { as: 'requests'; container: string } | { as: 'leaves' };

export interface EchoArgs {
  encoding: Encoding;
  /** `echo`: the encoded values go to the echo destination, and its answer is `raw`. */
  via: 'direct' | 'echo';
  values: Record<string, unknown>;
  tokenize?: TokenizeSpec;
}

// No Buffer or btoa in the sandbox: base64 by hand, over the UTF-8 bytes.
const CODE = String.raw`module.exports = async ({ args, configuration }) => {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const base64 = (text) => {
    const bytes = unescape(encodeURIComponent(text));
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes.charCodeAt(i) << 16) | ((bytes.charCodeAt(i + 1) || 0) << 8) | (bytes.charCodeAt(i + 2) || 0);
      out += ALPHABET[(n >> 18) & 63] + ALPHABET[(n >> 12) & 63];
      out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63] : '=';
      out += i + 2 < bytes.length ? ALPHABET[n & 63] : '=';
    }
    return out;
  };
  const text = (value) => (typeof value === 'string' ? value : JSON.stringify(value));
  const encodings = {
    as_is: (value) => value,
    json: (value) => JSON.stringify(value),
    uri: (value) => encodeURIComponent(text(value)),
    base64: (value) => base64(text(value)),
    base64url: (value) => base64(text(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''),
    no_delimiters: (value) => text(value).replace(/[^A-Za-z0-9]/g, ''),
    upper: (value) => text(value).toUpperCase(),
    embedded: (value) => 'seen <' + text(value) + '> here',
    key: (value) => ({ [text(value)]: true }),
    uri_json: (value) => encodeURIComponent(JSON.stringify(value)),
    base64_embedded: (value) => base64('seen <' + text(value) + '> here'),
    thrown: (value) => {
      throw new Error('cannot use <' + text(value) + '>');
    },
  };
  const values = args.values;
  const encoded = {};
  for (const name of Object.keys(values)) encoded[name] = encodings[args.encoding](values[name]);
  let raw = { encoding: args.encoding, values: encoded };
  if (args.via === 'echo') {
    const response = await fetch(configuration.echo_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(raw),
    });
    raw = { status: response.status, echoed: await response.json() };
  }
  const result = { raw };
  if (args.tokenize && args.tokenize.as === 'leaves') result.tokenize = values;
  else if (args.tokenize) {
    const container = args.tokenize.container;
    result.tokenize = Object.fromEntries(Object.keys(values).map((name) => [name, { type: 'token', data: values[name], containers: [container] }]));
  }
  return result;
};
`;

/** The formula as POST /reactor-formulas takes it (less name and type). */
export const ECHO_FORMULA = {
  code: CODE,
  configuration: [{ name: 'echo_url', type: 'string' }],
  request_parameters: [],
};

/** What the echo destination answers: the body it received, as is and base64-encoded. */
export const echoAnswer = (body: string) => ({ received: body, base64: Buffer.from(body, 'utf8').toString('base64') });

export const startEchoServer = (): Promise<LocalHttpServer> =>
  startLocalHttpServer((request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(echoAnswer(request.body)));
  });

type Formula = (input: { args: unknown; configuration: unknown }) => Promise<{ raw: unknown }>;
const local: { formula: Formula | null } = { formula: null };

/**
 * What the formula does with these (already detokenized) args, run here with a stand-in for the destination: the `raw`
 * it returns, or the message it throws.
 */
export const expectedOutcome = async (args: EchoArgs): Promise<{ raw: unknown } | { thrown: string }> => {
  try {
    return { raw: await expectedRaw(args) };
  } catch (error) {
    return { thrown: (error as Error).message };
  }
};

/** The `raw` the formula returns for these (already detokenized) args (throws what the formula throws). */
export const expectedRaw = async (args: EchoArgs): Promise<unknown> => {
  if (!local.formula) {
    const module = { exports: null as unknown };
    new Function('module', 'fetch', CODE)(module, async (_url: string, init: { body: string }) => ({
      status: 200,
      json: async () => echoAnswer(init.body),
    }));
    local.formula = module.exports as Formula;
  }
  return (await local.formula({ args, configuration: { echo_url: 'http://echo.invalid/' } })).raw;
};
