// ANY /proxy as a generated application, or as nobody: detokenization expressions (whole, spliced into a longer string,
// filtered) of tokens the caller's token:read rule reveals, masks, redacts or does not cover, in a JSON, text or form
// body and in header values, sent through a random proxy (proxy-fixtures.ts) or an ephemeral SVC-PROXY-URL to a
// destination that hands everything back in every encoding (proxy-echo.ts). The model: the caller learns nothing from
// the answer but what it may already see ("What flows back"), so the answer goes through the invariant, decoded layer
// by layer. Also predicted: a filter on a token not revealed is a 403, a token missing or not covered by token:use a
// 400 (the same message for both), an anonymous invocation detokenizes nothing, the destination gets exactly the
// detokenized request and the caller exactly the destination's answer where every value was revealed to it, and the
// caller's view (mask, else [redacted]) where one was not; every answer the vault makes carries SVC-PROXY-ERROR.
import type { Test } from 'supertest';
import { count, ran } from './branches';
import { expressionText, rendered, stringForm, TOKEN_NOT_FOUND } from './expressions';
import { knowsPlaintext, learnFromRequest, type AppModel } from './knowledge';
import { currentVersion, heldPermissions, Level, LEVEL, selectRule, type TokenModel, type Transform } from './model';
import type { BodyKind, ProxyChoice, ProxyItem, ProxyTarget } from './proxy-choices';
import { echoPath, type EchoedAnswer } from './proxy-echo';
import { describeProxy, proxyFor, type ProxySpec } from './proxy-fixtures';
import { type Cmd, clip, type Reply, World } from './world';

const readOf = (app: AppModel, token: TokenModel): Transform | 'none' => selectRule(app.spec, token.containers, 'token:read')?.transform ?? 'none';
const usable = (app: AppModel, token: TokenModel) => token.alive && !!selectRule(app.spec, token.containers, 'token:use');
const unknownTo = (app: AppModel, token: TokenModel) => !knowsPlaintext(app, currentVersion(token));

const fits = (app: AppModel, token: TokenModel, target: ProxyTarget): boolean => {
  if (target === 'no-use') return !usable(app, token);
  if (!usable(app, token)) return false;
  const read = readOf(app, token);
  return target === 'read-reveal' ? read === 'reveal' : target === 'read-mask' ? read === 'mask' : target === 'read-other' ? read === 'redact' || read === 'none' : true;
};

/** What the caller's token:read rule shows of a token it may not see whole: the mask, else nothing. */
const viewOf = (app: AppModel, token: TokenModel): string => (readOf(app, token) === 'mask' && token.masked !== null ? token.masked : '[redacted]');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const METHODS_WITH_BODY = ['post', 'put', 'patch'] as const;
const METHODS_WITHOUT = ['get', 'delete'] as const;
const CONTENT_TYPES: Record<Exclude<BodyKind, 'none'>, string> = {
  json: 'application/json',
  text: 'text/plain',
  form: 'application/x-www-form-urlencoded',
  octet: 'application/octet-stream',
};

/** One expression as placed in the request, and what the destination must get in its place. */
interface Placed {
  /** Its place in the choice's items: `v<index>` in a body, `x-leak-<index>` as a header. */
  index: number;
  item: ProxyItem;
  token: TokenModel | null;
  text: string;
  /** Where the API names it: `body.v0`, `body`, `headers.x-leak-1`. */
  path: string;
  /** Read and detokenized by the vault (a caller's JSON, text or form body, or a header value). */
  detokenized: boolean;
  /** What replaces the expression (an Error when the filters fail on the data). */
  value: unknown;
}

/** A token a transform made on the way: whose data it holds, and in which direction it was made. */
interface Created {
  id: string;
  suppliers: 'caller' | [];
  direction: 'request' | 'response';
}

let calls = 0;

export class ProxyCommand implements Cmd {
  constructor(readonly c: ProxyChoice) {}

  check(): boolean {
    return true;
  }

  async run(w: World): Promise<void> {
    ran('proxy');
    w.beginStep();
    const c = this.c;
    const first = c.items[0];
    const callers = w.apps.filter((a) => heldPermissions(a.spec).has('token:use'));
    const fitting = callers.filter((a) => w.tokens.some((t) => fits(a, t, first.target)));
    const app: AppModel = c.anonymous
      ? w.anonymous
      : c.anyApp
        ? w.appWhere(c.app, (a) => !callers.includes(a))
        : fitting.length
          ? fitting[c.app % fitting.length]
          : w.appWhere(c.app, (a) => callers.includes(a));
    const route = c.route;
    // Anonymous callers mostly meet proxies that let them in: those are what must never detokenize.
    const wanted = c.anonymous && route === 'proxy' && c.app % 3 !== 0 ? { ...c.spec, requireAuth: false } : c.spec;
    const fixture = route === 'proxy' ? await proxyFor(w, wanted, w.options.proxy.url) : null;
    const spec = fixture?.spec ?? null;
    const body = c.body;
    const wrapped = spec?.request === 'wrap' && body === 'json';
    const readable = !c.anonymous && (body === 'json' || body === 'text' || body === 'form');

    const placed: Placed[] = c.items.map((it, i) => {
      const candidates = c.anonymous ? w.tokens : w.tokens.filter((t) => fits(app, t, it.target));
      const unknown = it.target === 'read-mask' || it.target === 'read-other' ? candidates.filter((t) => unknownTo(app, t)) : [];
      const pool = unknown.length ? unknown : candidates;
      const token = it.target === 'unknown' || w.tokens.length === 0 ? null : pool.length ? pool[it.ref % pool.length] : w.token(it.ref);
      // Without a body the expressions go in headers; an octet-stream body (not read) gets some of them, as sent.
      const place = body === 'none' ? 'header' : body === 'octet' && i % 2 === 0 ? 'header' : it.place;
      const inText = place === 'body' && body !== 'json';
      const choice = inText ? { ...it, embed: false } : it;
      const text = expressionText(token?.id ?? c.unknownId, choice);
      const path = place === 'header' ? `headers.x-leak-${i}` : body === 'json' ? `body.${wrapped ? 'wrapped.' : ''}v${i}` : 'body';
      const detokenized = !c.anonymous && (place === 'header' || readable);
      const value = token && !c.anonymous && usable(app, token) ? rendered(token.data, choice) : undefined;
      return { index: i, item: { ...it, place }, token, text, path, detokenized, value };
    });
    const bodyItems = placed.filter((p) => p.item.place === 'body');
    const headerItems = placed.filter((p) => p.item.place === 'header');
    const sentBody = this.body(bodyItems, (p) => p.text);
    const method = body === 'none' ? METHODS_WITHOUT[c.method % 2] : METHODS_WITH_BODY[c.method % 3];
    const call = `${++calls}`;
    const encodings = ['as_is' as const, ...c.bodyEncodings.filter((e) => e !== 'as_is'), ...c.gapEncodings];
    const path = `/proxy${echoPath({ status: c.status, media: c.media, body: encodings, headers: c.headerEncodings, call })}`;
    const query = `q=${c.literal}`;
    const proxyKey = route === 'unknown-key' ? c.unknownId.replace(/-/g, '') : fixture?.key;

    // What the vault must answer itself.
    const used = placed.filter((p) => p.detokenized && p.token && usable(app, p.token));
    const shaped = used.filter((p) => p.item.filters !== null && readOf(app, p.token!) !== 'reveal');
    const missing = placed.filter((p) => p.detokenized && (!p.token || !usable(app, p.token)));
    const failed = used.filter((p) => p.value instanceof Error);
    let expected: { status: number[]; why: string; errors?: Record<string, string[]> } | null = null;
    if (c.anonymous && (route !== 'proxy' || spec!.requireAuth)) expected = { status: [401], why: 'anonymous, and the proxy needs an API key (or there is none)' };
    else if (!c.anonymous && !heldPermissions(app.spec).has('token:use')) expected = { status: [403], why: 'the app lacks token:use' };
    else if (route === 'unknown-key') expected = { status: [404], why: 'SVC-PROXY-KEY names no proxy' };
    else if (shaped.length) expected = { status: [403], why: `filters on ${shaped.map((p) => w.label(p.token!)).join(', ')}, not revealed`, errors: Object.fromEntries(shaped.map((p) => [p.path, []])) };
    else if (missing.length) {
      expected = { status: [400], why: `no token:use rule covers, or no such token: ${missing.map((p) => p.path).join(', ')}`, errors: Object.fromEntries(missing.map((p) => [p.path, [TOKEN_NOT_FOUND]])) };
    } else if (failed.length) expected = { status: [400], why: `the filters fail at ${failed.map((p) => p.path).join(', ')}` };

    const levels = w.levelsOf(app);
    learnFromRequest(app, { body: sentBody, headers: headerItems.map((p) => p.text), literal: c.literal });
    const who = c.anonymous ? 'anonymous' : `app${app.index}`;
    const what = `${method.toUpperCase()} ${path}?${query} via ${route === 'proxy' ? describeProxy(spec!) : route}${c.keyIn === 'query' ? ' (key in query)' : ''} ${clip(JSON.stringify({ body: sentBody, headers: headerItems.map((p) => p.text) }), 600)}`;
    const reply = await w.raw(who, what, (http) => {
      let req: Test = http[method](c.keyIn === 'query' && proxyKey ? `${path}?svc-proxy-key=${encodeURIComponent(proxyKey)}&${query}` : `${path}?${query}`);
      req = req.buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
      if (!c.anonymous) req = req.set('SVC-API-KEY', app.key);
      if (proxyKey && c.keyIn === 'header') req = req.set('SVC-PROXY-KEY', proxyKey);
      if (route === 'ephemeral') req = req.set('SVC-PROXY-URL', w.options.proxy.url);
      headerItems.forEach((p) => (req = req.set(`x-leak-${p.index}`, p.text)));
      if (sentBody !== null) req = req.set('Content-Type', CONTENT_TYPES[body as Exclude<BodyKind, 'none'>]).send(sentBody);
      return req;
    });
    const answer = w.options.proxy.destination.take(call);
    if (spec?.request === 'tokenize' && body === 'json' && !(answer && reply.headers['x-destination'] === 'echo')) {
      // The request's tokenize transform ran before the vault refused to send it: its token exists, and nobody was shown its id.
      await this.discover(w, c.anonymous ? [] : [app.index]);
    }
    const forwarded = answer !== undefined && reply.headers['x-destination'] === 'echo' && reply.status === c.status;
    if (!forwarded) {
      if (reply.headers['svc-proxy-error'] !== 'true') w.mismatch('STATUS', `an answer of the vault's own must carry SVC-PROXY-ERROR: true: ${reply.status} ${clip(reply.text)}`);
      if (reply.status >= 500) w.fail('5XX', `${what} answered ${reply.status} (the vault's own): ${clip(reply.text, 2000)}`);
    } else if (reply.headers['svc-proxy-error'] !== undefined) {
      w.mismatch('STATUS', `the destination's own answer carries SVC-PROXY-ERROR: ${JSON.stringify(reply.headers)}`);
    }
    w.checkLeaks(app, reply, levels, new Set(), true);

    if (expected) {
      w.expectStatus(reply, expected.status, expected.why);
      const errors = (reply.body as { errors?: Record<string, string[]> } | null)?.errors ?? {};
      if (reply.status === expected.status[0] && expected.errors) {
        // The 403 names the places (its message is the shaping one); the 400 gives the not-found message for each.
        const sorted = (e: Record<string, string[]>, keysOnly: boolean) => Object.keys(e).sort().map((k) => (keysOnly ? k : [k, e[k]]));
        const got = sorted(errors, expected.status[0] === 403);
        const want = sorted(expected.errors, expected.status[0] === 403);
        if (JSON.stringify(got) !== JSON.stringify(want)) w.mismatch('VIEW', `expected errors ${JSON.stringify(want)}, got ${clip(reply.text)}`);
      }
      if (reply.status === 401 && c.anonymous) count('proxyAnonymous401');
      if (reply.status === 403 && expected.errors) count('proxyShaping403');
      if (reply.status === 403 && !expected.errors) count('proxyNoUse403');
      if (reply.status === 400 && expected.errors) count('proxyMissing400');
      if (reply.status === 404) count('proxyUnknownKey');
      return;
    }
    if (!forwarded || !answer) {
      w.mismatch('STATUS', `expected the destination's ${c.status}, got ${reply.status}: ${clip(reply.text, 2000)}`);
      return;
    }
    if (c.status >= 300) count('proxyDestinationStatus');
    if (route === 'ephemeral') count('proxyEphemeral');
    if (spec && (spec.request !== 'none' || spec.response.length)) count('proxyTransformed');
    const created: Created[] = [];
    this.checkReceived(w, answer, placed, sentBody, spec, proxyKey, created);
    await this.checkAnswer(w, app, reply, answer, spec, used, created);
  }

  /** Tokens the audit log says were made that the model has not seen: made by a transform of an invocation refused after it. */
  private async discover(w: World, suppliers: number[]): Promise<void> {
    const logs = await w.manage('GET', '/logs?entity_type=token&size=20');
    const entries = (logs.body as { data?: Array<{ entity_id?: string; operation?: string }> }).data ?? [];
    for (const entry of entries) {
      if (entry.operation === 'create' && typeof entry.entity_id === 'string' && !w.byId(entry.entity_id)) await w.sync(entry.entity_id, suppliers);
    }
  }

  /** The body as sent: JSON with the caller's literal, a text or form line, or none. */
  private body(items: readonly Placed[], text: (p: Placed) => unknown): string | null {
    const c = this.c;
    switch (c.body) {
      case 'none':
        return null;
      case 'json':
        return JSON.stringify({ lit: c.literal, ...Object.fromEntries(items.map((p) => [`v${p.index}`, text(p)])) });
      case 'form':
        return [`lit=${c.literal}`, ...items.map((p) => `v${p.index}=${stringForm(text(p))}`)].join('&');
      default:
        return [`lit ${c.literal}`, ...items.map((p) => `v${p.index}: ${stringForm(text(p))}`)].join('\n');
    }
  }

  /** What reached the destination: the expressions detokenized (or, anonymous, not), none of the vault's own headers. */
  private checkReceived(
    w: World,
    answer: EchoedAnswer,
    placed: readonly Placed[],
    sentBody: string | null,
    spec: ProxySpec | null,
    proxyKey: string | undefined,
    created: Created[],
  ) {
    const received = answer.received;
    const vaultHeaders = Object.keys(received.headers).filter((name) => name.startsWith('svc-'));
    if (vaultHeaders.length) w.mismatch('VIEW', `the vault's own headers reached the destination: ${vaultHeaders.join(', ')}`);
    if (proxyKey && received.path.includes(proxyKey)) w.mismatch('VIEW', `the proxy key reached the destination in ${received.path}`);
    const c = this.c;
    if (c.anonymous) count('proxyAnonymous');
    const expectedBody = c.anonymous ? sentBody : this.body(placed.filter((p) => p.item.place === 'body'), (p) => (p.detokenized ? p.value : p.text));
    let got: unknown = received.body;
    let want: unknown = expectedBody ?? '';
    if (c.body === 'json') {
      got = JSON.parse(received.body || 'null');
      want = JSON.parse(expectedBody!);
      if (spec?.request === 'wrap') want = { wrapped: want };
      const lit = (spec?.request === 'wrap' ? (got as { wrapped?: Record<string, unknown> }).wrapped : (got as Record<string, unknown>))?.lit;
      if (spec?.request === 'tokenize' && typeof lit === 'string' && UUID.test(lit)) {
        (want as Record<string, unknown>).lit = lit;
        created.push({ id: lit, suppliers: c.anonymous ? [] : 'caller', direction: 'request' });
      }
    }
    if (JSON.stringify(got) !== JSON.stringify(want)) w.mismatch('VIEW', `the destination should get the body ${clip(JSON.stringify(want))}, got ${clip(JSON.stringify(got))}`);
    for (const p of placed.filter((x) => x.item.place === 'header')) {
      // A whole array token as a header value comes out as its first element (the detokenized headers are read as
      // repeated lines of one header): wrong, but it shows the caller nothing; not predicted here until it is fixed.
      if (p.detokenized && Array.isArray(p.value)) continue;
      const name = p.path.slice('headers.'.length);
      const expected = p.detokenized ? (typeof p.value === 'string' ? p.value : JSON.stringify(p.value)) : p.text;
      if (received.headers[name] !== expected) w.mismatch('VIEW', `the destination should get ${name}: ${clip(expected)}, got ${clip(String(received.headers[name]))}`);
      else if (p.detokenized) count('proxyHeader');
    }
    if ((c.body === 'text' || c.body === 'form') && !c.anonymous && placed.some((p) => p.item.place === 'body' && p.detokenized)) count('proxyText');
  }

  /**
   * What came back: the destination's answer as it was where nothing needed replacing; where the caller's token:read rule
   * does not reveal a value it put in, that rule's view in its place; tokens a transform made, shown by id only.
   */
  private async checkAnswer(w: World, app: AppModel, reply: Reply, answer: EchoedAnswer, spec: ProxySpec | null, used: readonly Placed[], created: Created[]) {
    const c = this.c;
    const hidden = used.filter((p) => readOf(app, p.token!) !== 'reveal');
    const transformsAnswer = !!spec && spec.response.length > 0;
    if (used.length && !hidden.length) count('proxyRevealed');
    const unknown = hidden.filter((p) => unknownTo(app, p.token!));
    if (unknown.some((p) => readOf(app, p.token!) === 'mask')) count('proxyMasked');
    if (unknown.some((p) => readOf(app, p.token!) !== 'mask')) count('proxyUnread');
    if (hidden.some((p) => p.item.embed)) count('proxyEmbedded');
    if (!hidden.length && !transformsAnswer) {
      const same = reply.text === answer.body.toString('utf8') && Object.entries(answer.headers).every(([name, value]) => reply.headers[name] === value);
      if (!same) w.mismatch('VIEW', `nothing to replace, so the destination's answer should come back as it was; got ${clip(reply.text)}`);
    }
    if (c.media === 'json' && !transformsAnswer) {
      // Where the destination wrote a value back as it got it, the caller finds its own view of the token instead.
      const answerBody = reply.body as { echo?: Record<string, unknown>; encoded?: Record<string, Record<string, unknown>> } | null;
      const echo = spec?.request === 'wrap' ? (answerBody?.echo?.wrapped as Record<string, unknown> | undefined) : answerBody?.echo;
      for (const p of hidden) {
        // What flows back looks for values of 4 characters or more.
        if (p.item.embed || typeof p.token!.data !== 'string' || [...p.token!.data].length < 4) continue;
        const got = p.item.place === 'header' ? answerBody?.encoded?.[`x-leak-${p.index}`]?.as_is : c.body === 'json' ? echo?.[`v${p.index}`] : undefined;
        if (got === undefined) continue;
        // Two tokens used may hold the same data (a reactor's token made of another's): either view may stand in for it.
        const views = hidden.filter((q) => q.token!.data === p.token!.data).map((q) => viewOf(app, q.token!));
        const view = viewOf(app, p.token!);
        if (!views.includes(got as string)) w.mismatch('VIEW', `${w.label(p.token!)} (read ${readOf(app, p.token!)}) should come back as ${JSON.stringify(view)}, got ${clip(JSON.stringify(got))}`);
        else count('proxyViewInPlace');
      }
    }
    if (spec?.response.includes('tokenize') && c.media === 'json') {
      const echo = (reply.body as { echo?: Record<string, unknown> } | null)?.echo;
      const field = spec.field === 'literal' ? 'lit' : 'v0';
      const id = echo?.[field];
      // A tokenize transform shows the caller the token's id where the value was, nothing else (null it leaves alone).
      if (id !== undefined && id !== null && (typeof id !== 'string' || !UUID.test(id))) w.mismatch('VIEW', `the tokenized ${field} should be a token id, got ${clip(JSON.stringify(id))}`);
      if (typeof id === 'string' && UUID.test(id) && !w.byId(id)) {
        created.push({ id, suppliers: spec.field === 'literal' && !c.anonymous ? 'caller' : [], direction: 'response' });
      }
    }
    const cap = used.length ? (Math.min(...used.map((p) => LEVEL[readOf(app, p.token!)])) as Level) : null;
    for (const made of created) {
      if (w.byId(made.id)) continue;
      const token = await w.sync(made.id, made.suppliers === 'caller' ? [app.index] : []);
      count('proxyTokenize');
      // Made from what the destination answered, which held values the caller's token:read rules show at most as `cap`.
      if (made.direction === 'response' && cap !== null && !c.anonymous) token.caps.set(app.index, cap);
    }
  }

  toString(): string {
    const c = this.c;
    const items = c.items.map((i) => `${i.place}:${i.target}@${i.ref}${i.filters === null ? '' : `|f${i.filters}`}${i.embed ? ' embedded' : ''}`);
    const via = c.route === 'proxy' ? describeProxy(c.spec) : c.route;
    return `proxy(${c.anonymous ? 'anonymous' : `app${c.app}${c.anyApp ? ' any' : ''}`} ${via} ${c.body} [${items.join(', ')}] → ${c.status} ${c.media}${c.gapEncodings.length ? ` +${c.gapEncodings.join('+')}` : ''})`;
  }
}

