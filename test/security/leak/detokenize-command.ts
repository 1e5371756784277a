// POST /detokenize as a generated application: expressions of tokens it reveals, masks, redacts or may not read, of
// ids that are no token, with filters, inside longer strings, nested in objects and arrays. The model predicts the
// whole answer: the data (reveal), the mask through the filters (mask), a 403 naming the path (redact, or a mask
// rule on a token without a mask), and one 400 with the same message for a token no rule covers and one that does
// not exist.
import fc from 'fast-check';
import { count, ran } from './branches';
import { BodyShape, ExpressionChoice, expressionChoice, expressionText, placeInBody, rendered, TOKEN_NOT_FOUND } from './expressions';
import { learnFromRequest, type AppModel } from './knowledge';
import { heldPermissions, selectRule, type TokenModel } from './model';
import { type Cmd, clip, World } from './world';

/** Which token an expression is for, picked at run time by what the caller's token:read rule shows of it. */
export type ReadTarget = 'reveal' | 'mask' | 'redact' | 'uncovered' | 'unknown' | 'any';

export interface DetokenizeChoice {
  app: number;
  /** Any application, not only one holding token:read (then a 403 for the endpoint). */
  anyApp: boolean;
  shape: BodyShape;
  expressions: Array<ExpressionChoice & { target: ReadTarget }>;
  unknownId: string;
}

export const detokenizeChoice: fc.Arbitrary<DetokenizeChoice> = fc.record({
  app: fc.nat({ max: 31 }),
  anyApp: fc.nat({ max: 9 }).map((n) => n === 0),
  shape: fc.constantFrom<BodyShape>('string', 'object', 'array', 'nested'),
  expressions: fc.array(
    fc.tuple(
      expressionChoice({ filters: 2, embed: 4 }),
      fc.constantFrom<ReadTarget>('reveal', 'mask', 'mask', 'redact', 'uncovered', 'unknown', 'any'),
    ).map(([e, target]) => ({ ...e, target })),
    { minLength: 1, maxLength: 3 },
  ),
  unknownId: fc.uuid({ version: 4 }),
});

const readTransform = (app: AppModel, token: TokenModel) => (token.alive ? (selectRule(app.spec, token.containers, 'token:read')?.transform ?? null) : null);

const pickToken = (w: World, app: AppModel, target: ReadTarget, ref: number): TokenModel | null => {
  if (target === 'unknown' || w.tokens.length === 0) return null;
  if (target !== 'any') {
    const fitting = w.tokens.filter((t) => (target === 'uncovered' ? readTransform(app, t) === null : readTransform(app, t) === target));
    if (fitting.length) return fitting[ref % fitting.length];
  }
  return w.token(ref);
};

type Outcome = { token: TokenModel | null; transform: 'reveal' | 'mask' | 'redact' | null; value: unknown };

export class DetokenizeCommand implements Cmd {
  constructor(readonly c: DetokenizeChoice) {}

  check(): boolean {
    return true;
  }

  async run(w: World): Promise<void> {
    ran('detokenize');
    w.beginStep();
    const app = this.c.anyApp ? w.app(this.c.app) : w.appWhere(this.c.app, (a) => heldPermissions(a.spec).has('token:read'));
    const expressions = this.c.shape === 'string' ? this.c.expressions.slice(0, 1) : this.c.expressions;
    const outcomes: Outcome[] = expressions.map((e) => {
      const token = pickToken(w, app, e.target, e.ref);
      const transform = token ? readTransform(app, token) : null;
      const shown = transform === 'reveal' ? token!.data : transform === 'mask' ? token!.masked : null;
      return { token, transform, value: shown === null ? undefined : rendered(shown, e) };
    });
    const { body, paths } = placeInBody(
      this.c.shape,
      expressions.map((e, i) => expressionText(outcomes[i].token?.id ?? this.c.unknownId, e)),
    );
    const missing = paths.filter((_, i) => outcomes[i].transform === null);
    const hidden = outcomes.findIndex((o) => o.transform !== null && o.value === undefined);
    const failed = paths.filter((_, i) => outcomes[i].value instanceof Error);

    const levels = w.levelsOf(app);
    learnFromRequest(app, body);
    const reply = await w.act(app, 'POST', '/detokenize', body);
    w.checkLeaks(app, reply, levels);
    const problem = reply.body as { detail?: string; errors?: Record<string, string[]> };
    if (!heldPermissions(app.spec).has('token:read')) {
      w.expectStatus(reply, [403], 'the app lacks token:read');
    } else if (missing.length) {
      const why = missing.map((p) => `${p}: ${this.describe(w, outcomes[paths.indexOf(p)])}`).join(', ');
      w.expectStatus(reply, [400], `no token:read rule covers, or no such token: ${why}`);
      const expected = Object.fromEntries(missing.map((p) => [p, [TOKEN_NOT_FOUND]]));
      if (reply.status === 400 && JSON.stringify(problem.errors) !== JSON.stringify(expected)) {
        w.mismatch('VIEW', `a token no rule covers and one that does not exist must be the same 400 (${JSON.stringify(expected)}), got ${clip(reply.text)}`);
      }
      if (reply.status === 400) {
        if (missing.some((p) => outcomes[paths.indexOf(p)].token?.alive)) count('detokenizeNoRule400');
        if (missing.some((p) => !outcomes[paths.indexOf(p)].token)) count('detokenizeUnknown400');
      }
    } else if (hidden >= 0) {
      w.expectStatus(reply, [403], `the rule for ${paths[hidden]} (${this.describe(w, outcomes[hidden])}) shows no data`);
      if (reply.status === 403) {
        if (!problem.detail?.includes(`at ${paths[hidden]} `)) w.mismatch('VIEW', `the 403 should name ${paths[hidden]}: ${clip(reply.text)}`);
        count('detokenizeHidden403');
      }
    } else if (failed.length) {
      w.expectStatus(reply, [400], `the filters fail at ${failed.join(', ')}`);
    } else {
      w.expectStatus(reply, [200], 'every expression is shown by a rule');
      const expected = placeInBody(this.c.shape, outcomes.map((o) => o.value)).body;
      if (reply.status === 200) {
        if (JSON.stringify(reply.body) !== JSON.stringify(expected)) {
          w.mismatch('VIEW', `detokenize should answer ${clip(JSON.stringify(expected))}, got ${clip(reply.text)}`);
        }
        outcomes.forEach((o, i) => {
          if (o.transform === 'reveal') count('detokenizeReveal');
          if (o.transform === 'mask') count('detokenizeMask');
          if (o.transform === 'mask' && (expressions[i].filters !== null || expressions[i].embed)) count('detokenizeMaskShaped');
        });
      }
    }
  }

  private describe(w: World, o: Outcome): string {
    if (!o.token) return 'an id that is no token';
    return `${w.label(o.token)}${o.token.alive ? '' : ' (deleted)'} under ${o.transform ?? 'no token:read rule'}`;
  }

  toString(): string {
    const what = this.c.expressions.map((e) => `${e.target}@${e.ref}${e.filters === null ? '' : `|f${e.filters}`}${e.embed ? ' embedded' : ''}`);
    return `detokenize(app${this.c.app}${this.c.anyApp ? ' any' : ''} ${this.c.shape} ${what.join(', ')})`;
  }
}
