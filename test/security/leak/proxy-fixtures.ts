// The leak property's proxies: random ones (anonymous or not; a request transform that wraps the body or tokenizes the
// caller's own literal; response transforms that mask, tokenize or re-encode what the destination answered), all to the
// echoing destination (proxy-echo.ts), created by the tenant's management key on first use in a run.
import fc from 'fast-check';
import { TOKEN_CONTAINERS } from './model';
import { REACTOR_APPLICATION, World, clip } from './world';

export type RequestTransform = 'none' | 'wrap' | 'tokenize';
export type ResponseTransform = 'mask' | 'tokenize' | 'encode';
/** What a response transform re-encodes the answer's body in (code in the sandbox, after the destination). */
export type TransformEncoding = 'base64' | 'uri' | 'hex';

export interface ProxySpec {
  requireAuth: boolean;
  request: RequestTransform;
  /** In this order: mask, tokenize, encode (mask and tokenize read fields of the destination's JSON answer). */
  response: ResponseTransform[];
  /**
   * The field of the destination's echo that the response mask and tokenize transforms name: the caller's own literal,
   * or the value its first expression put in (what flows back is taken out before any response transform sees it).
   */
  field: 'literal' | 'expression';
  encoding: TransformEncoding;
  container: string;
}

export const proxySpecArb: fc.Arbitrary<ProxySpec> = fc
  .record({
    requireAuth: fc.constantFrom(true, true, false),
    request: fc.constantFrom<RequestTransform>('none', 'none', 'none', 'wrap', 'tokenize'),
    mask: fc.nat({ max: 3 }).map((n) => n === 0),
    tokenize: fc.nat({ max: 2 }).map((n) => n === 0),
    encode: fc.nat({ max: 3 }).map((n) => n === 0),
    field: fc.constantFrom<ProxySpec['field']>('literal', 'literal', 'expression'),
    encoding: fc.constantFrom<TransformEncoding>('base64', 'uri', 'hex'),
    container: fc.constantFrom(...TOKEN_CONTAINERS),
  })
  .map(({ mask, tokenize, encode, ...rest }) => ({
    ...rest,
    // The ids a tokenize transform puts in are read back from the JSON answer: no re-encoding after it.
    response: [...(mask ? ['mask' as const] : []), ...(tokenize ? ['tokenize' as const] : []), ...(encode && !tokenize ? ['encode' as const] : [])],
  }));

export const describeProxy = (spec: ProxySpec): string =>
  [
    spec.requireAuth ? 'auth' : 'anonymous',
    spec.request === 'none' ? '' : `request:${spec.request}`,
    spec.response.length ? `response:${spec.response.map((t) => (t === 'encode' ? `encode(${spec.encoding})` : t)).join('+')}` : '',
    spec.response.some((t) => t !== 'encode') || spec.request === 'tokenize' ? `on ${spec.field} into ${spec.container}` : '',
  ]
    .filter(Boolean)
    .join(' ');

/** Whether a tokenize transform runs (it needs the proxy's application). */
export const tokenizes = (spec: ProxySpec) => spec.request === 'tokenize' || spec.response.includes('tokenize');

// No Buffer in the sandbox: base64 and hex by hand, over the UTF-8 bytes.
const ENCODE_CODE = String.raw`module.exports = async ({ args, configuration }) => {
  const text = typeof args.body === 'string' ? args.body : JSON.stringify(args.body);
  const bytes = unescape(encodeURIComponent(text));
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const base64 = () => {
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes.charCodeAt(i) << 16) | ((bytes.charCodeAt(i + 1) || 0) << 8) | (bytes.charCodeAt(i + 2) || 0);
      out += A[(n >> 18) & 63] + A[(n >> 12) & 63] + (i + 1 < bytes.length ? A[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? A[n & 63] : '=');
    }
    return out;
  };
  const hex = () => Array.from(bytes, (c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  const encoded = configuration.encoding === 'use:base64' ? base64() : configuration.encoding === 'use:hex' ? hex() : encodeURIComponent(text);
  return { body: { encoded } };
};`;

const WRAP_CODE = `module.exports = async ({ args }) => (args.body !== null && typeof args.body === 'object' ? { body: { wrapped: args.body } } : {});`;

const fieldPath = (spec: ProxySpec) => (spec.field === 'literal' ? '$.echo.lit' : '$.echo.v0');

export const proxyBody = (spec: ProxySpec, destination: string, name: string, application: string | null) => ({
  name,
  destination_url: destination,
  require_auth: spec.requireAuth,
  // A secret the guard withholds wherever it comes back: written so that no echo holds it by chance.
  configuration: { encoding: `use:${spec.encoding}` },
  ...(application ? { application: { id: application } } : {}),
  request_transforms:
    spec.request === 'wrap'
      ? [{ type: 'code', code: WRAP_CODE }]
      : spec.request === 'tokenize'
        ? [{ type: 'tokenize', fields: [{ json_path: '$.lit', token: { type: 'token', containers: [spec.container] } }] }]
        : [],
  response_transforms: spec.response.map((t) =>
    t === 'mask'
      ? { type: 'mask', fields: [fieldPath(spec)] }
      : t === 'tokenize'
        ? { type: 'tokenize', fields: [{ json_path: fieldPath(spec), token: { type: 'token', containers: [spec.container] } }] }
        : { type: 'code', code: ENCODE_CODE },
  ),
});

export interface ProxyFixture {
  id: string;
  key: string;
  spec: ProxySpec;
}

const fixtures = new WeakMap<World, { proxies: Map<string, ProxyFixture>; tokenizer: string | null }>();

/**
 * The run's proxy for `spec`, created on first use. Its tokenize transforms make tokens as an application that may create
 * and reveal everywhere (REACTOR_APPLICATION): only what the caller is shown stands between the caller and them.
 */
export const proxyFor = async (w: World, spec: ProxySpec, destination: string): Promise<ProxyFixture> => {
  let run = fixtures.get(w);
  if (!run) fixtures.set(w, (run = { proxies: new Map(), tokenizer: null }));
  const name = JSON.stringify(spec);
  const known = run.proxies.get(name);
  if (known) return known;
  if (tokenizes(spec) && run.tokenizer === null) {
    const created = await w.manage('POST', '/applications', { name: 'proxy application', type: 'private', ...REACTOR_APPLICATION });
    if (created.status !== 201) w.fail('MODEL', `the proxy's application was refused: ${created.status} ${clip(created.text)}`);
    run.tokenizer = (created.body as { id: string }).id;
  }
  const body = proxyBody(spec, destination, `leak proxy ${run.proxies.size}`, tokenizes(spec) ? run.tokenizer : null);
  const reply = await w.manage('POST', '/proxies', body);
  if (reply.status !== 201) w.fail('MODEL', `the proxy ${describeProxy(spec)} was refused: ${reply.status} ${clip(reply.text)}`);
  const { id, key } = reply.body as { id: string; key: string };
  const fixture = { id, key, spec };
  run.proxies.set(name, fixture);
  w.note(`proxy P${run.proxies.size - 1} = ${describeProxy(spec)}`);
  return fixture;
};
