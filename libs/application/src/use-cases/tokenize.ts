// POST /tokenize and POST /detokenize (API.md "Tokenize and detokenize"). The domain reads the body (tokenize.plan.ts,
// detokenize.plan.ts); these handlers ask the access policy about every token, create or deduplicate the tokens as
// POST /tokens does (in one batch), and show each token as the caller's rule does. The caller is taken from the command
// alone, so a reactor's result can be tokenized as the reactor's application.
import {
  AccessRule,
  bodyFieldPath,
  BODY_PATH,
  DomainError,
  detokenizeSteps,
  ExpressionEngine,
  parseTokenData,
  planDetokenize,
  planTokenizeSteps,
  selectRule,
  Steps,
  TokenCrypto,
  tokenDecider,
  TokenRecord,
  tokenStream,
  type PlannedToken,
  type TokenView as ShownToken,
} from '@vault/domain';
import type { CommandRunner } from '../commands/command-runner';
import type { IdGenerator } from '../ports/system';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { openSealed, toTokenView, TokenView } from './token-view';
import { activeToken, createTokenCommand, findDuplicateView, tokenFingerprint } from './tokens';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from './use-case';

/** Tokenizes `body` as `caller`: the answer has the body's shape, each request or leaf replaced by its token. */
export class TokenizeCommand extends VaultCommand<unknown> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

/** Detokenizes `body` as `caller`: every detokenization expression replaced by the token as the caller's rule shows it. */
export class DetokenizeQuery extends VaultQuery<unknown> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

/** A token to create: where it sits in the body, and what POST /tokens would create for it. */
interface Creation {
  planned: PlannedToken;
  id: string;
  fingerprint: string;
  rule: AccessRule;
}

/** What goes back at one place of the body: a token found by deduplication, or the creation at that index. */
type Result = { found: TokenView } | { created: number };

export class TokenizeHandler implements UseCaseHandler<TokenizeCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly ids: IdGenerator,
  ) {}

  async execute({ caller, body }: TokenizeCommand): Promise<unknown> {
    const ctx = contextOf(caller);
    // Every request is validated before anything else: one 400 naming every bad path.
    const plan = await inTurns(planTokenizeSteps(body, { now: ctx.now, engine: this.engine }));
    const { tenantId, accessRules: rules } = caller.principal;
    const createRules = plan.requests.map(({ request }) => selectRule(rules, request.draft.containers, 'token:create'));
    assertEveryCreateCovered(plan.requests, createRules);

    const results: Result[] = [];
    const creations: Creation[] = [];
    /** The latest creation with this type and fingerprint: what a later request's deduplication finds first. */
    const newest = new Map<string, number>();
    for (const [i, planned] of plan.requests.entries()) {
      // The crypto and the index answer without waiting for I/O: a turn of the event loop between tokens keeps a body
      // of 100 from holding it (API.md "Transport": 50 ms).
      if (i > 0) await nextTurn();
      const { request } = planned;
      const fingerprint = tokenFingerprint(this.crypto, tenantId, request);
      const key = `${request.draft.type}\u0000${fingerprint}`;
      if (request.deduplicate_token) {
        // As if the requests were sent one after another: an earlier one of this body is the newest match. Its
        // containers passed the caller's token:create rule, so the deduplication rule for it is that same rule.
        const earlier = newest.get(key);
        if (earlier !== undefined) {
          results.push({ created: earlier });
          continue;
        }
        const found = await findDuplicateView(this.index, this.crypto, { tenantId, rules, type: request.draft.type, fingerprint, now: ctx.now });
        if (found) {
          results.push({ found });
          continue;
        }
      }
      newest.set(key, creations.length);
      results.push({ created: creations.length });
      creations.push({ planned, id: request.id ?? this.ids.newId(), fingerprint, rule: createRules[i]! });
    }

    const outcomes = await this.runner.runMany(
      tokenDecider,
      creations.map(({ planned, id, fingerprint }) => ({
        streamId: tokenStream(tenantId, id),
        command: atPath(planned.path, createTokenCommand(this.crypto, tenantId, id, planned.request, fingerprint)),
      })),
      ctx,
    );
    const created: TokenView[] = [];
    for (const [i, { rule }] of creations.entries()) {
      if (i > 0) await nextTurn();
      created.push(await toTokenView(activeToken(outcomes[i].state), rule, this.crypto));
    }
    return plan.rebuild(results.map((result) => ('found' in result ? result.found : created[result.created])));
  }
}

export class DetokenizeHandler implements UseCaseHandler<DetokenizeQuery> {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
  ) {}

  execute({ caller, body }: DetokenizeQuery): Promise<unknown> {
    return this.detokenize(caller, body, 'token:read');
  }

  /**
   * `token:read` (POST /detokenize): each token as the caller's rule shows it. `token:use` (a reactor's args, API.md
   * "Reactors" step 2): the data whatever the rule's transform, since it goes to the code, never back to the caller.
   */
  async detokenize(caller: Caller, body: unknown, permission: 'token:read' | 'token:use'): Promise<unknown> {
    // Every expression and filter chain is read before any token is.
    const plan = planDetokenize(body, { engine: this.engine });
    const views = new Map<string, ShownToken>();
    // Every id is looked up the same way, whatever an earlier one gave, so neither the answer nor its timing tells a
    // missing token from one no rule covers.
    for (const [i, id] of plan.tokenIds.entries()) {
      if (i > 0) await nextTurn();
      const view = await this.shown(caller, id, permission);
      if (view) views.set(id, view);
    }
    return inTurns(detokenizeSteps(plan, views, this.engine));
  }

  /**
   * The token as the caller's rule for `permission` shows it, decrypting only what the transform shows. Null (the
   * domain's one "not found" 400) when it is missing, expired, another tenant's, deleted (its key shredded) or no rule
   * covers it.
   */
  private async shown(caller: Caller, id: string, permission: 'token:read' | 'token:use'): Promise<ShownToken | null> {
    const token = await this.index.get(caller.principal.tenantId, id, caller.now.getTime());
    const rule = token && selectRule(caller.principal.accessRules, token.containers, permission);
    if (!token || !rule) return null;
    try {
      return await this.view(token, permission === 'token:use' ? { transform: 'reveal' } : rule);
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return null;
      throw error;
    }
  }

  private async view(token: TokenRecord, rule: Pick<AccessRule, 'transform'>): Promise<ShownToken> {
    switch (rule.transform) {
      case 'reveal':
        return { transform: 'reveal', data: parseTokenData(token.type, await openSealed(this.crypto, token, token.encrypted, 'data')) };
      case 'mask':
        return { transform: 'mask', masked: token.masked === null ? null : await openSealed(this.crypto, token, token.masked, 'mask') };
      case 'redact':
        return { transform: 'redact' };
    }
  }
}

/**
 * The access policy before anything is created: a token:create rule on each token's containers. Else one 403 naming
 * every path without one (API.md "What a write may reveal"); a body that is one request is named `body`.
 */
const assertEveryCreateCovered = (requests: readonly PlannedToken[], rules: ReadonlyArray<AccessRule | null>): void => {
  const uncovered = requests.filter((_, i) => rules[i] === null);
  if (uncovered.length === 0) return;
  const where = (path: string) => path || BODY_PATH;
  const message = "No access rule of this application grants token:create on this token's containers.";
  const errors = Object.fromEntries(uncovered.map(({ path, leaf }) => [leaf ? where(path) : bodyFieldPath(path, 'containers'), [message]]));
  const more = uncovered.length > 1 ? ` (and ${uncovered.length - 1} more, named in errors)` : '';
  throw new DomainError(
    'forbidden',
    `No access rule of this application grants token:create on the containers of the token at ${where(uncovered[0].path)}${more}.`,
    errors,
  );
};

/** A token create whose id turns out taken (a 409) names the request's place in the body. */
const atPath =
  <S, C>(path: string, build: (state: S) => Promise<C>) =>
  async (state: S): Promise<C> => {
    try {
      return await build(state);
    } catch (error) {
      if (!path || !(error instanceof DomainError) || error.kind !== 'conflict') throw error;
      throw new DomainError('conflict', `The id of the request at ${path} is already taken in this tenant.`);
    }
  };

/** Lets the event loop run what is waiting (timers, I/O) before going on: awaiting a settled promise would not. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Drives the domain's steps (steps.ts), giving the event loop, and the expression engine's budget, a turn between them. */
const inTurns = async <T>(steps: Steps<T>): Promise<T> => {
  let step = steps.next();
  for (; !step.done; step = steps.next()) await nextTurn();
  return step.value;
};
