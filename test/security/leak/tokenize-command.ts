// POST /tokenize as a generated application: one request, arrays and objects of requests, leaves, or both, with and
// without deduplicate_token (the requests are POST /tokens bodies, deduplication probes among them). The model
// predicts each answer's token as POST /tokens would: a request deduplicates only to a token one of the caller's
// token:create rules covers (else, or without deduplicate_token, a new token; an earlier request of the same body
// counts as existing), every token is shown by the caller's token:create rule, and one uncovered request refuses all.
import fc from 'fast-check';
import { salted, secretString } from './arbitraries';
import { anyCreate, CreateChoice, dedupeProbe } from './token-choices';
import { count, ran } from './branches';
import { createBody } from './create-command';
import { learnFromRequest } from './knowledge';
import { draftProblems, fingerprintInput, heldPermissions, selectRule, TokenModel, TokenType, TYPE_DEFAULTS } from './model';
import { type Cmd, clip, World } from './world';

export type TokenizeForm = 'single' | 'array' | 'object' | 'leaves' | 'mixed';
type Leaf = string | number | boolean;

export interface TokenizeChoice {
  app: number;
  anyApp: boolean;
  form: TokenizeForm;
  requests: CreateChoice[];
  leaves: Leaf[];
}

export const tokenizeChoice: fc.Arbitrary<TokenizeChoice> = fc.record({
  app: fc.nat({ max: 31 }),
  anyApp: fc.nat({ max: 9 }).map((n) => n === 0),
  form: fc.constantFrom<TokenizeForm>('single', 'array', 'object', 'leaves', 'mixed'),
  requests: fc.array(fc.oneof({ weight: 2, arbitrary: dedupeProbe }, { weight: 1, arbitrary: anyCreate }), { minLength: 1, maxLength: 3 }),
  leaves: fc.array(fc.oneof({ weight: 4, arbitrary: secretString }, fc.integer({ min: 0, max: 999 }), fc.boolean()), { minLength: 1, maxLength: 3 }),
});

interface Entry {
  path: Array<string | number>;
  leaf: boolean;
  type: TokenType;
  containers: string[];
  dedupe: boolean;
  problems: ReturnType<typeof draftProblems>;
  key: string | null;
}

const entryOf = (path: Entry['path'], value: unknown): Entry => {
  if (typeof value !== 'object' || value === null) {
    const draft = { type: 'token' as const, data: value, search_indexes: [], fingerprint_expression: TYPE_DEFAULTS.token.fingerprint_expression, mask: null };
    const input = fingerprintInput(draft);
    return { path, leaf: true, type: 'token', containers: [TYPE_DEFAULTS.token.container], dedupe: false, problems: draftProblems(draft), key: input === null ? null : `token\u0000${input}` };
  }
  const body = value as Record<string, unknown>;
  const type = body.type as TokenType;
  const defaults = TYPE_DEFAULTS[type];
  const draft = {
    type,
    data: body.data,
    search_indexes: (body.search_indexes as string[] | undefined) ?? defaults.search_indexes,
    fingerprint_expression: (body.fingerprint_expression as string | undefined) ?? defaults.fingerprint_expression,
    mask: (body.mask as string | undefined) ?? defaults.mask,
  };
  const input = fingerprintInput(draft);
  return {
    path,
    leaf: false,
    type,
    containers: (body.containers as string[] | undefined) ?? [defaults.container],
    dedupe: body.deduplicate_token === true,
    problems: draftProblems(draft),
    key: input === null ? null : `${type}\u0000${input}`,
  };
};

const at = (body: unknown, path: Entry['path']): unknown => path.reduce<unknown>((value, step) => (value as Record<string | number, unknown>)?.[step], body);

/** What one entry's token should be: a new one, an existing one a create rule covers, or an earlier entry's. */
type Expected = { created: true; hidden: TokenModel[] } | { found: TokenModel[] } | { sameAs: number };

export class TokenizeCommand implements Cmd {
  constructor(readonly c: TokenizeChoice) {}

  check(): boolean {
    return true;
  }

  async run(w: World): Promise<void> {
    ran('tokenize');
    w.beginStep();
    const app = this.c.anyApp ? w.app(this.c.app) : w.appWhere(this.c.app, (a) => heldPermissions(a.spec).has('token:create'));
    const requests = this.c.requests.map((r) => createBody(r, w, app.spec).body);
    const leaves = this.c.leaves.map((leaf) => (typeof leaf === 'string' ? salted(leaf, w.nextSalt()) : leaf));
    const { body, entries } = this.layout(requests, leaves);
    const expected = this.predict(w, app.spec, entries);
    const certain = entries.flatMap((e) => e.problems.certain.map((p) => `${e.path.join('.')}: ${p}`));
    const possible = entries.some((e) => e.problems.possible.length);
    const uncovered = entries.filter((e) => !selectRule(app.spec, e.containers, 'token:create'));

    const levels = w.levelsOf(app);
    learnFromRequest(app, body);
    const reply = await w.act(app, 'POST', '/tokenize', body);
    w.checkLeaks(app, reply, levels);
    if (!heldPermissions(app.spec).has('token:create')) return w.expectStatus(reply, [403], 'the app lacks token:create');
    if (certain.length) return w.expectStatus(reply, [400], `invalid: ${certain.join('; ')}`);
    const allowed = uncovered.length ? [403] : [201];
    if (possible) allowed.push(400);
    w.expectStatus(reply, allowed, uncovered.length ? `no token:create rule covers ${uncovered.map((e) => e.path.join('.') || 'body').join(', ')}` : 'every request is covered');
    if (reply.status !== 201) return;

    const views = entries.map((e) => at(reply.body, e.path) as { id: string });
    const ids = views.map((v) => v?.id?.toLowerCase());
    for (const [i, want] of expected.entries()) {
      const id = ids[i];
      if ('found' in want) {
        const got = w.byId(id);
        if (got && !selectRule(app.spec, got.containers, 'token:create')) {
          w.fail('LEAK', `the request at ${entries[i].path.join('.') || 'body'} deduplicated to ${w.label(got)}, which no token:create rule of app${app.index} covers`);
        }
        if (want.found.some((t) => t.id === id)) count('tokenizeDedupeCovered');
        else w.mismatch('STATUS', `the request at ${entries[i].path.join('.') || 'body'} should deduplicate to ${want.found.map((t) => w.label(t)).join('/')}, got ${w.label(id)}`);
      } else if ('sameAs' in want) {
        if (id !== ids[want.sameAs]) w.mismatch('STATUS', `the request at ${entries[i].path.join('.')} should deduplicate to the token of ${entries[want.sameAs].path.join('.')}`);
      } else if (w.byId(id)) {
        w.fail('LEAK', `the request at ${entries[i].path.join('.') || 'body'} answered with the existing token ${w.label(id)}, which no token:create rule of app${app.index} covers`);
      } else if (want.hidden.length && entries[i].dedupe) count('tokenizeDedupeHidden');
    }
    if (entries.some((e) => e.leaf)) count('tokenizeLeaves');
    for (const [i, id] of ids.entries()) {
      const token = w.byId(id) ?? (await w.sync(id, [app.index]));
      const rule = selectRule(app.spec, token.containers, 'token:create');
      if (rule) w.expectView(views[i], token, rule.transform, `tokenize answer at ${entries[i].path.join('.') || 'body'}`);
      else w.mismatch('VIEW', `tokenize answered with ${w.label(token)}, which no token:create rule covers: ${clip(reply.text)}`);
    }
  }

  /** The body of the chosen form, and its requests and leaves in body order (depth first, keys and indexes in order). */
  private layout(requests: Array<Record<string, unknown>>, leaves: Leaf[]): { body: unknown; entries: Entry[] } {
    switch (this.c.form) {
      case 'single':
        return { body: requests[0], entries: [entryOf([], requests[0])] };
      case 'array':
        return { body: requests, entries: requests.map((r, i) => entryOf([i], r)) };
      case 'object':
        return { body: Object.fromEntries(requests.map((r, i) => [`r${i}`, r])), entries: requests.map((r, i) => entryOf([`r${i}`], r)) };
      case 'leaves': {
        const [first, ...rest] = leaves;
        return { body: { l0: first, more: { list: rest } }, entries: [entryOf(['l0'], first), ...rest.map((l, i) => entryOf(['more', 'list', i], l))] };
      }
      case 'mixed':
        return {
          body: { r0: requests[0], leaves, ...(requests[1] ? { r1: requests[1] } : {}) },
          entries: [entryOf(['r0'], requests[0]), ...leaves.map((l, i) => entryOf(['leaves', i], l)), ...(requests[1] ? [entryOf(['r1'], requests[1])] : [])],
        };
    }
  }

  private predict(w: World, spec: Parameters<typeof selectRule>[0], entries: readonly Entry[]): Expected[] {
    const created = new Map<string, number>();
    return entries.map((e, i): Expected => {
      const matches = e.key === null ? [] : w.tokens.filter((t) => t.alive && `${t.type}\u0000${t.fingerprintInput}` === e.key && t.fingerprintInput !== null);
      if (e.dedupe && e.key !== null) {
        const earlier = created.get(e.key);
        if (earlier !== undefined) return { sameAs: earlier };
        const covered = matches.filter((t) => selectRule(spec, t.containers, 'token:create'));
        if (covered.length) return { found: covered };
      }
      if (e.key !== null) created.set(e.key, i);
      return { created: true, hidden: matches };
    });
  }

  toString(): string {
    const requests = this.c.requests.map((r) => (r.derive ? `${r.dedupe ? 'dedupe ' : ''}${r.derive.mode}@${r.derive.steer}${r.derive.ref}` : `${r.type}${r.dedupe ? ' dedupe' : ''}`));
    return `tokenize(app${this.c.app}${this.c.anyApp ? ' any' : ''} ${this.c.form} [${requests.join(', ')}] leaves ${this.c.leaves.length})`;
  }
}
