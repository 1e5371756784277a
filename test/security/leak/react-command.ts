// POST /reactors/{id}/react as a generated application, with the echo formula (echo-formula.ts): args of tokens the
// caller's token:read rule reveals, masks, redacts or does not cover (token:use is what the call needs), literals it
// sends itself, and ids that are no token; the code copies them into `raw` in some encoding, maybe through the echo
// destination, and maybe tokenizes them. The model: the caller learns nothing from a react but what it already may
// see ("What flows back"), so `raw` goes through the same invariant as every answer. Also predicted: filters or an
// expression inside a longer string on a token not revealed is a 403, a token missing or not covered a 400, and a
// tokenized result the caller's rules would show more revealingly than its args' tokens a 403; where every value
// was the caller's own or revealed to it, `raw` is exactly what the code returns.
import fc from 'fast-check';
import { count, ran } from './branches';
import { EchoArgs, Encoding, ENCODINGS, expectedOutcome, TokenizeSpec } from './echo-formula';
import { ExpressionChoice, expressionChoice, expressionText, rendered, TOKEN_NOT_FOUND } from './expressions';
import { knowsPlaintext, learnFromRequest, type AppModel } from './knowledge';
import { currentVersion, heldPermissions, Level, LEVEL, selectRule, SHOWING_PERMISSIONS, TOKEN_CONTAINERS, type TokenModel, type Transform } from './model';
import { secretString } from './arbitraries';
import { viewsIn } from './invariant';
import { type Cmd, clip, REACTOR_APPLICATION, World } from './world';

/** Which token an arg is for: by what the caller's token:read rule shows of it (with token:use), or one token:use misses. */
export type UseTarget = 'read-reveal' | 'read-mask' | 'read-other' | 'no-use' | 'any';

export type ArgChoice =
  | (ExpressionChoice & { kind: 'token'; target: UseTarget })
  | { kind: 'literal'; text: string }
  | { kind: 'unknown' };

export interface ReactChoice {
  app: number;
  anyApp: boolean;
  args: ArgChoice[];
  encoding: Encoding;
  via: 'direct' | 'echo';
  tokenize?: TokenizeSpec;
  /** The reactor invoked: `application` tokenizes the result as its own application (world.ts REACTOR_APPLICATION). */
  reactor: 'own' | 'application';
  unknownId: string;
  /** Exploration only: an arg for which no token the caller's token:read rule reveals exists becomes a literal. */
  onlyRevealed?: boolean;
}

const argChoice: fc.Arbitrary<ArgChoice> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc
      .tuple(
        expressionChoice({ filters: 6, embed: 6 }),
        fc.constantFrom<UseTarget>('read-reveal', 'read-reveal', 'read-mask', 'read-mask', 'read-mask', 'read-other', 'read-other', 'no-use', 'any'),
      )
      .map(([e, target]): ArgChoice => ({ ...e, kind: 'token', target })),
  },
  { weight: 1, arbitrary: secretString.map((text): ArgChoice => ({ kind: 'literal', text })) },
  { weight: 1, arbitrary: fc.constant<ArgChoice>({ kind: 'unknown' }) },
);

export const reactChoice: fc.Arbitrary<ReactChoice> = fc.record(
  {
    app: fc.nat({ max: 31 }),
    anyApp: fc.nat({ max: 9 }).map((n) => n === 0),
    args: fc.array(argChoice, { minLength: 1, maxLength: 2 }),
    // A thrown message is one more way out, and a rare one otherwise: three times as likely as each encoding into raw.
    encoding: fc.constantFrom<Encoding>(...ENCODINGS, 'thrown', 'thrown'),
    via: fc.constantFrom<'direct' | 'echo'>('direct', 'direct', 'echo'),
    tokenize: fc.oneof(
      fc.constantFrom(...TOKEN_CONTAINERS).map((container): TokenizeSpec => ({ as: 'requests', container })),
      fc.constant<TokenizeSpec>({ as: 'leaves' }),
    ),
    reactor: fc.constantFrom<'own' | 'application'>('own', 'own', 'application'),
    unknownId: fc.uuid({ version: 4 }),
  },
  { requiredKeys: ['app', 'anyApp', 'args', 'encoding', 'via', 'reactor', 'unknownId'] },
);

const RANK: Record<Transform | 'none', Level> = LEVEL;
const readOf = (app: AppModel, token: TokenModel): Transform | 'none' => selectRule(app.spec, token.containers, 'token:read')?.transform ?? 'none';
const usable = (app: AppModel, token: TokenModel) => token.alive && !!selectRule(app.spec, token.containers, 'token:use');

/** Whether the caller does not know the token's current data: the args that put "What flows back" to the test. */
const unknownTo = (app: AppModel, token: TokenModel) => !knowsPlaintext(app, currentVersion(token));

const fits = (app: AppModel, token: TokenModel, target: UseTarget): boolean => {
  if (target === 'no-use') return !usable(app, token);
  if (!usable(app, token)) return false;
  const read = readOf(app, token);
  return target === 'read-reveal' ? read === 'reveal' : target === 'read-mask' ? read === 'mask' : target === 'read-other' ? read === 'redact' || read === 'none' : true;
};

/** The leaves a value is tokenized as (POST /tokenize walks arrays and objects; null stays null). */
const leavesOf = (value: unknown): unknown[] =>
  Array.isArray(value) ? value.flatMap(leavesOf) : value && typeof value === 'object' ? Object.values(value).flatMap(leavesOf) : value === null ? [] : [value];

interface Arg {
  name: string;
  choice: ArgChoice;
  token: TokenModel | null;
  text: unknown;
  value: unknown;
}

export class ReactCommand implements Cmd {
  constructor(readonly c: ReactChoice) {}

  check(): boolean {
    return true;
  }

  async run(w: World): Promise<void> {
    ran('react');
    w.beginStep();
    // An application holding token:use, and one for which some token fits the first arg, when there is one.
    const first = this.c.args[0];
    const callers = w.apps.filter((a) => heldPermissions(a.spec).has('token:use'));
    const fitting = first.kind === 'token' ? callers.filter((a) => w.tokens.some((t) => fits(a, t, first.target))) : [];
    const app = this.c.anyApp ? w.app(this.c.app) : fitting.length ? fitting[this.c.app % fitting.length] : w.appWhere(this.c.app, (a) => callers.includes(a));
    const args: Arg[] = this.c.args.map((choice, i) => {
      const name = `a${i}`;
      if (choice.kind === 'literal') return { name, choice, token: null, text: choice.text, value: choice.text };
      if (choice.kind === 'unknown' || w.tokens.length === 0) {
        return { name, choice, token: null, text: expressionText(this.c.unknownId, { prefixed: false, filters: null, embed: false }), value: undefined };
      }
      // Masked or unread tokens whose data the caller does not know from elsewhere first: those test the backstop.
      const candidates = w.tokens.filter((t) => fits(app, t, choice.target));
      const unknown = choice.target === 'read-mask' || choice.target === 'read-other' ? candidates.filter((t) => unknownTo(app, t)) : [];
      const fitting = unknown.length ? unknown : candidates;
      if (this.c.onlyRevealed && !fitting.length) return { name, choice: { kind: 'literal', text: `literal${name}` }, token: null, text: `literal${name}`, value: `literal${name}` };
      const token = fitting.length ? fitting[choice.ref % fitting.length] : w.token(choice.ref);
      return { name, choice, token, text: expressionText(token.id, choice), value: usable(app, token) ? rendered(token.data, choice) : undefined };
    });
    const expressions = args.filter((a) => a.choice.kind !== 'literal');
    const used = expressions.filter((a) => a.token && usable(app, a.token));
    const path = (a: Arg) => `args.values.${a.name}`;
    const shaped = used.filter((a) => a.choice.kind === 'token' && (a.choice.filters !== null || a.choice.embed) && readOf(app, a.token!) !== 'reveal');
    const missing = expressions.filter((a) => !a.token || !usable(app, a.token));
    const failed = used.filter((a) => a.value instanceof Error);
    const cap = used.length ? Math.min(...used.map((a) => RANK[readOf(app, a.token!)])) : null;
    const requests = this.tokenizeContainers(args);
    // The tokenizing application's token:create rules decide where the result may go; the invoking caller's rules, what
    // it may be shown.
    const tokenizer = this.c.reactor === 'application' ? REACTOR_APPLICATION : app.spec;
    const uncreatable = requests.some((containers) => !selectRule(tokenizer, containers, 'token:create'));
    const raised =
      cap !== null &&
      requests.some((containers) => SHOWING_PERMISSIONS.some((p) => RANK[selectRule(app.spec, containers, p)?.transform ?? 'none'] > cap));

    const reactor = await w.reactorId(this.c.reactor);
    const body = { args: { encoding: this.c.encoding, via: this.c.via, values: Object.fromEntries(args.map((a) => [a.name, a.text])), ...(this.c.tokenize ? { tokenize: this.c.tokenize } : {}) } };
    const levels = w.levelsOf(app);
    learnFromRequest(app, body);
    const reply = await w.act(app, 'POST', `/reactors/${reactor}/react`, body);
    w.checkLeaks(app, reply, levels);
    const errors = (reply.body as { errors?: Record<string, string[]> }).errors ?? {};
    if (!heldPermissions(app.spec).has('token:use')) {
      w.expectStatus(reply, [403], 'the app lacks token:use');
    } else if (shaped.length) {
      w.expectStatus(reply, [403], `shapes ${shaped.map((a) => `${w.label(a.token!)} (read ${readOf(app, a.token!)})`).join(', ')}, which the caller's token:read rule does not reveal`);
      if (reply.status === 403 && JSON.stringify(Object.keys(errors).sort()) === JSON.stringify(shaped.map(path).sort())) count('reactShaping403');
    } else if (missing.length) {
      w.expectStatus(reply, [400], `no token:use rule covers, or no such token: ${missing.map((a) => (a.token ? w.label(a.token) : 'unknown id')).join(', ')}`);
      if (reply.status === 400) {
        const expected = Object.fromEntries(missing.map((a) => [path(a), [TOKEN_NOT_FOUND]]));
        if (JSON.stringify(errors) !== JSON.stringify(expected)) w.mismatch('VIEW', `expected errors ${JSON.stringify(expected)}, got ${clip(reply.text)}`);
        count('reactMissing400');
      }
    } else if (failed.length) {
      w.expectStatus(reply, [400], `the filters fail on ${failed.map((a) => a.name).join(', ')}`);
    } else if (this.c.encoding === 'thrown') {
      w.expectStatus(reply, [422], 'the code throws');
      if (reply.status === 422) this.afterThrow(w, app, errors, used);
    } else if (this.c.tokenize && (uncreatable || raised)) {
      w.expectStatus(reply, [403], uncreatable ? 'no token:create rule covers where the result would be tokenized' : `the caller's rules would show the tokenized result more than its args' tokens (${cap})`);
      if (reply.status === 403) count('reactTokenize403');
    } else {
      w.expectStatus(reply, [200], 'the reactor runs');
      if (reply.status === 200) await this.after(w, app, reply.body as { raw: unknown; tokens: unknown }, args, used, cap);
    }
  }

  /** Per tokenize request, its containers (the type's default for leaves). */
  private tokenizeContainers(args: readonly Arg[]): string[][] {
    const spec = this.c.tokenize;
    if (!spec) return [];
    if (spec.as === 'requests') return args.map(() => [spec.container]);
    return args.flatMap((a) => leavesOf(a.value)).map(() => ['/general/high/']);
  }

  private async after(w: World, app: AppModel, answer: { raw: unknown; tokens: unknown }, args: readonly Arg[], used: readonly Arg[], cap: number | null) {
    const reads = used.map((a) => readOf(app, a.token!));
    const unknownReads = used.filter((a) => unknownTo(app, a.token!)).map((a) => readOf(app, a.token!));
    if (reads.length && reads.every((r) => r === 'reveal')) count('reactRevealed');
    if (unknownReads.includes('mask')) count('reactMasked');
    if (unknownReads.some((r) => r === 'redact' || r === 'none')) count('reactUnread');
    if (this.c.via === 'echo') count('reactEcho');
    if (reads.every((r) => r === 'reveal')) {
      // Nothing for the vault to replace: raw is what the code made of the values.
      const expected = await expectedOutcome(this.echoArgs(args));
      if (JSON.stringify(answer.raw) !== JSON.stringify('raw' in expected ? expected.raw : null)) {
        w.mismatch('VIEW', `raw should be ${clip(JSON.stringify(expected))}, got ${clip(JSON.stringify(answer.raw))}`);
      }
    }
    if (!this.c.tokenize) return;
    count('reactTokenize');
    const idOnly = cap !== null && cap < LEVEL.reveal;
    if (idOnly) count('reactTokenizeIdOnly');
    if (this.c.reactor === 'application') count('reactTokenizeAsApplication');
    for (const view of viewsIn(answer.tokens)) {
      if (w.byId(view.id)) continue;
      const token = await w.sync(view.id, cap === null ? [app.index] : [], idOnly);
      // Made from data the caller's token:read rules showed at most as `cap`: never entitles it to more.
      if (cap !== null) token.caps.set(app.index, cap as Level);
    }
  }

  private echoArgs(args: readonly Arg[]): EchoArgs {
    return { encoding: this.c.encoding, via: this.c.via, values: Object.fromEntries(args.map((a) => [a.name, a.value])) };
  }

  /**
   * The code threw: errors.reactor holds its message (wrapped, and with what the code was given taken out, whoever the
   * caller: showing less than the rule is no leak).
   */
  private afterThrow(w: World, app: AppModel, errors: Record<string, string[]>, used: readonly Arg[]) {
    if (errors.reactor?.length !== 1 || !errors.reactor[0].includes('cannot use <')) {
      w.mismatch('VIEW', `errors.reactor should hold the message the code threw, got ${JSON.stringify(errors)}`);
    }
    if (used.some((a) => unknownTo(app, a.token!))) count('reactThrown');
  }

  toString(): string {
    const args = this.c.args.map((a) =>
      a.kind === 'token' ? `${a.target}@${a.ref}${a.filters === null ? '' : `|f${a.filters}`}${a.embed ? ' embedded' : ''}` : a.kind,
    );
    const tokenize = this.c.tokenize ? ` tokenize=${this.c.tokenize.as === 'leaves' ? 'leaves' : this.c.tokenize.container} as ${this.c.reactor}` : '';
    return `react(app${this.c.app}${this.c.anyApp ? ' any' : ''} ${this.c.encoding} ${this.c.via} [${args.join(', ')}]${tokenize})`;
  }
}
