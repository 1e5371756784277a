// POST /tokenize and POST /detokenize (API.md "Tokenize and detokenize"). The domain reads the body (tokenize.plan.ts,
// detokenize.plan.ts); these handlers ask the access policy about every token, create or deduplicate the tokens as
// POST /tokens does (in one batch), and show each token as the caller's rule does. The caller is taken from the command
// alone, so a reactor's result can be tokenized as the reactor's application.
import { AccessRule, accessScope, assertShapingRevealed, bodyFieldPath, BODY_PATH, cappedTransform, deduplicationRule, DomainError, detokenizeSteps, type FlowBackSource, REDACTED_VIEW, ExpressionEngine, fieldErrorsOf, leastInsight, parseTokenData, planDetokenize, planTokenizeSteps, type QueryNode, revealsMoreThan, selectRule, tokenDecider, TokenRecord, tokenStream, type PlannedToken, type TokenView as ShownToken, type UseInsight, type ValidTokenCreate } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import { recordAccess } from '../audit/record-access';
import type { CommandRunner } from '../commands/command-runner';
import type { AccessLog } from '../ports/access-log';
import type { IdGenerator } from '../ports/system';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { openSealed, toTokenView, TokenView } from '../tokens/token-view';
import { activeToken, createTokenCommand, DuplicateView, findDuplicateView, tokenFingerprint } from '../tokens/create-token';
import { inTurns, nextTurn } from '../shared/turns';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from '../shared/use-case';

/**
 * A reactor's `tokenize` (react.ts): `caller` tokenizes (the reactor's application, or the invoking caller), but the
 * invoking caller must learn no more from the answer than its own rules show of what its args used.
 */
export interface OnBehalfOf {
  /** The invoking caller: a deduplication that shows it stored plaintext is recorded as its access, not the reactor's. */
  invoker: Caller;
  /** The invoking caller's rules: deduplication returns only tokens its token:create rules cover too. */
  rules: readonly AccessRule[];
  /**
   * The invoking caller's least revealing token:read transform over the tokens its args detokenized, or null when the
   * args held none. Set: every token is shown by the invoking caller's token:read rule at most this revealing, and a
   * token the invoking caller's read or search rules would show more revealingly is refused (403), never created.
   * Below `reveal` (idOnlyCap), more: the answer is an array of IdOnlyViews in body order, not the body's shape (its
   * keys come from the code, which may have taken them from the data), and the tokens are created without search
   * indexes (API.md "What a write may reveal": a caller without reveal can never change what they match on).
   */
  cap: UseInsight | null;
}

/**
 * What a reactor's token is shown as when the invoking caller does not reveal every token its args used: no data, no
 * mask, and nothing else computed from the data (fingerprint, search indexes), since a new mask or fingerprint over the
 * same data may show more than the caller's rule showed of the token it came from.
 */
export type IdOnlyView = Pick<TokenView, 'id' | 'type' | 'containers' | 'metadata' | 'expires_at' | 'created_by' | 'created_at'>;

/** A cap below `reveal`: the tokens made for the invoking caller are shown as IdOnlyViews, in an array. */
export const idOnlyCap = (cap: UseInsight | null | undefined): boolean => cap != null && cap !== 'reveal';

const idOnlyView = (token: Pick<TokenView, keyof IdOnlyView>): IdOnlyView => ({
  id: token.id,
  type: token.type,
  containers: token.containers,
  metadata: token.metadata,
  ...(token.expires_at === undefined || token.expires_at === null ? {} : { expires_at: token.expires_at }),
  created_by: token.created_by,
  created_at: token.created_at,
});

/**
 * The request as a token made from data the invoking caller does not see whole: nothing derived from the data that
 * the caller's own reads and searches of the new token could show later (API.md "What a write may reveal": the mask,
 * the search indexes and the fingerprint are data). No mask, no search indexes (neither the type's defaults nor the
 * code's), and a fingerprint of a random value: it matches no guess, no other token and no later deduplication.
 */
const withoutDerivedValues = (request: ValidTokenCreate, nonce: string): ValidTokenCreate => ({
  ...request,
  deduplicate_token: false,
  draft: { ...request.draft, search_indexes: [], mask: null },
  prepared: { ...request.prepared, search_values: [], masked: null, fingerprint_input: `derived-under-cap\u0000${nonce}` },
});

/** Tokenizes `body` as `caller`: the answer has the body's shape, each request or leaf replaced by its token. */
export class TokenizeCommand extends VaultCommand<unknown> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
    readonly onBehalfOf?: OnBehalfOf,
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
type Result = { found: TokenView | IdOnlyView } | { created: number };

export class TokenizeHandler implements UseCaseHandler<TokenizeCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly ids: IdGenerator,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, body, onBehalfOf }: TokenizeCommand): Promise<unknown> {
    const ctx = contextOf(caller);
    // Every request is validated before anything else: one 400 naming every bad path.
    const plan = await inTurns(planTokenizeSteps(body, { now: ctx.now, engine: this.engine }));
    const { tenantId, accessRules: rules } = caller.principal;
    const createRules = plan.requests.map(({ request }) => selectRule(rules, request.draft.containers, 'token:create'));
    assertEveryCreateCovered(plan.requests, createRules);
    if (onBehalfOf?.cap != null) assertShownNoMoreThan(plan.requests, onBehalfOf.rules, onBehalfOf.cap);
    const idOnly = idOnlyCap(onBehalfOf?.cap);

    const results: Result[] = [];
    const creations: Creation[] = [];
    /** Existing tokens deduplication shows in plaintext: each a read of stored data, recorded before the answer. */
    const revealed = new Set<string>();
    /** The latest creation with this type and fingerprint: what a later request's deduplication finds first. */
    const newest = new Map<string, number>();
    for (const [i, planned] of plan.requests.entries()) {
      // The crypto and the index answer without waiting for I/O: a turn of the event loop between tokens keeps a body
      // of 100 from holding it (API.md "Transport": 50 ms).
      if (i > 0) await nextTurn();
      // Made from data the caller does not see whole: nothing derived from it, and no deduplication (whether an
      // existing token matches would tell about the data).
      const request = idOnly ? withoutDerivedValues(planned.request, this.ids.newId()) : planned.request;
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
        const lookup = { tenantId, rules, type: request.draft.type, fingerprint, now: ctx.now };
        const found = onBehalfOf
          ? await this.duplicateOnBehalf(lookup, onBehalfOf)
          : await findDuplicateView(this.index, this.crypto, lookup);
        if (found) {
          if (found.revealed) revealed.add(found.view.id);
          results.push({ found: idOnly ? idOnlyView(found.view) : found.view });
          continue;
        }
      }
      newest.set(key, creations.length);
      results.push({ created: creations.length });
      creations.push({ planned: { ...planned, request }, id: request.id ?? this.ids.newId(), fingerprint, rule: createRules[i]! });
    }

    const outcomes = await this.runner.runMany(
      tokenDecider,
      creations.map(({ planned, id, fingerprint }) => ({
        streamId: tokenStream(tenantId, id),
        command: atPath(planned.path, createTokenCommand(this.crypto, tenantId, id, planned.request, fingerprint)),
      })),
      ctx,
    );
    const created: Array<TokenView | IdOnlyView> = [];
    for (const [i, { rule, planned }] of creations.entries()) {
      if (i > 0) await nextTurn();
      const token = activeToken(outcomes[i].state);
      if (idOnly) created.push(idOnlyView({ ...token, expires_at: token.expires_at ?? undefined }));
      // The plaintext and mask just sealed are what the envelopes hold: shown without opening them again.
      else created.push(onBehalfOf?.cap != null ? await this.cappedView(token, onBehalfOf.rules, onBehalfOf.cap) : await toTokenView(token, rule, this.crypto, planned.request.prepared));
    }
    const shown = results.map((result) => ('found' in result ? result.found : created[result.created]));
    if (revealed.size > 0) {
      await recordAccess(this.access, onBehalfOf?.invoker ?? caller, [...revealed].map((id) => ({ entity_type: 'token' as const, entity_id: id, operation: 'reveal' as const, via: 'dedupe' as const })));
    }
    return idOnly ? shown : plan.rebuild(shown);
  }

  /**
   * A reactor's deduplication: the newest live token with this type and fingerprint that the token:create rules of both
   * the tokenizing application and the invoking caller cover (API.md "What a write may reveal": the invoking caller must
   * not learn, through the reactor's application, whether a value exists). With a cap, a token the invoking caller's
   * rules show more revealingly than the cap does not exist either: a new token is created, as when nothing matched.
   */
  private async duplicateOnBehalf(lookup: DuplicateLookup, onBehalfOf: OnBehalfOf): Promise<DuplicateView | null> {
    const scopes = [accessScope(lookup.rules, 'token:create'), accessScope(onBehalfOf.rules, 'token:create')];
    if (scopes.includes('nothing')) return null;
    const query: QueryNode = {
      kind: 'and',
      children: [
        { kind: 'term', field: 'fingerprint', value: lookup.fingerprint },
        { kind: 'term', field: 'type', value: lookup.type },
        ...scopes.filter((scope): scope is QueryNode => scope !== null && scope !== 'nothing'),
      ],
    };
    const page = await this.index.search({ tenantId: lookup.tenantId, query, now: lookup.now.getTime(), page: 1, size: 1 });
    const existing = page.items[0];
    if (!existing) return null;
    if (onBehalfOf.cap === null) {
      // The args held no token: the invoking caller supplied the data, and sees the match as its own POST /tokens
      // deduplication would show it, never more than the tokenizing application's rule does either.
      const callerRule = deduplicationRule(onBehalfOf.rules, existing);
      if (!callerRule) return null;
      const transform = cappedTransform(callerRule.transform, deduplicationRule(lookup.rules, existing)!.transform);
      return { view: await toTokenView(existing, { ...callerRule, transform }, this.crypto), revealed: transform === 'reveal' };
    }
    if (mostRevealing(onBehalfOf.rules, existing.containers, onBehalfOf.cap)) return null;
    const read = selectRule(onBehalfOf.rules, existing.containers, 'token:read');
    const revealed = read !== null && onBehalfOf.cap !== 'none' && cappedTransform(read.transform, onBehalfOf.cap) === 'reveal';
    return { view: await this.cappedView(existing, onBehalfOf.rules, onBehalfOf.cap), revealed };
  }

  /** The token as the invoking caller's token:read rule shows it, at most `cap`; no rule (or a cap of none): id-level fields. */
  private async cappedView(token: TokenRecord, rules: readonly AccessRule[], cap: UseInsight): Promise<TokenView> {
    const read = selectRule(rules, token.containers, 'token:read');
    const transform = cappedTransform(read?.transform ?? 'none', cap);
    const view = await toTokenView(token, { priority: 1, container: '/', permissions: ['token:read'], transform }, this.crypto);
    if (read && cap !== 'none') return view;
    // The fingerprint is computed from the data: a caller with no read rule on the token, or whose args used a token it
    // cannot read, is shown none of it.
    const { fingerprint, ...idLevel } = view;
    return idLevel as TokenView;
  }
}

interface DuplicateLookup {
  tenantId: string;
  rules: readonly AccessRule[];
  type: string;
  fingerprint: string;
  now: Date;
}

/**
 * The caller's operations whose answers show a token's data by their rule's transform: read and search, deduplication
 * (create) and update responses. A token:use rule's transform shows nothing (the code gets the data whatever it is).
 */
const SHOWING_PERMISSIONS = ['token:read', 'token:search', 'token:create', 'token:update'] as const;

/** The first of the caller's operations whose rule would show a token in `containers` more revealingly than `cap`, or null. */
const mostRevealing = (rules: readonly AccessRule[], containers: readonly string[], cap: UseInsight): string | null =>
  SHOWING_PERMISSIONS.find((permission) => revealsMoreThan(selectRule(rules, containers, permission)?.transform ?? 'none', cap)) ?? null;

/**
 * A reactor's result made from tokens the caller sees at most as `cap` must not become a token the caller's rules show
 * more revealingly (a masked card tokenized again under a reveal rule): one 403 naming every such path, nothing created.
 */
const assertShownNoMoreThan = (requests: readonly PlannedToken[], rules: readonly AccessRule[], cap: UseInsight): void => {
  const raised = requests.filter(({ request }) => mostRevealing(rules, request.draft.containers, cap) !== null);
  if (raised.length === 0) return;
  const where = (path: string) => path || BODY_PATH;
  const message =
    "The reactor's args used tokens this application's token:read rules do not reveal; a token made from them may not be created where this application's rules would show it more.";
  const more = raised.length > 1 ? ` (and ${raised.length - 1} more, named in errors)` : '';
  throw new DomainError(
    'forbidden',
    `The token at ${where(raised[0].path)}${more} would be shown more revealingly than the tokens the reactor's args used.`,
    fieldErrorsOf(raised.map(({ path }) => [where(path), [message]] as const)),
  );
};

export class DetokenizeHandler implements UseCaseHandler<DetokenizeQuery> {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly access: AccessLog,
  ) {}

  /**
   * POST /detokenize (`token:read`): each token as the caller's rule shows it, and one `reveal` access record per
   * distinct token shown in plaintext, durable before the answer leaves.
   */
  async execute({ caller, body }: DetokenizeQuery): Promise<unknown> {
    const { body: answer, views } = await this.detokenized(caller, body, 'token:read');
    const revealed = [...views].filter(([, view]) => view.transform === 'reveal').map(([id]) => id);
    await recordAccess(
      this.access,
      caller,
      revealed.map((id) => ({ entity_type: 'token', entity_id: id, operation: 'reveal', via: 'detokenize' })),
    );
    return answer;
  }

  /**
   * A reactor's args (`token:use`, API.md "Reactors" step 2): the body detokenized with the data whatever the rule's
   * transform, since it goes to the code, never back to the caller; the ids of the tokens it used (the reactor records
   * their `use`); and the caller's least revealing token:read transform over them (`none` for one no read rule covers;
   * null when it used none), which caps what the reactor's `tokenize` may show the caller. A filter chain or an
   * expression inside a longer string is a 403 on a token the caller's token:read rule does not reveal.
   */
  async detokenizeForUse(caller: Caller, body: unknown): Promise<{ body: unknown; used: string[]; least: UseInsight | null; flowBack: FlowBackSource[] }> {
    const { body: detokenized, views, least, flowBack } = await this.detokenized(caller, body, 'token:use');
    return { body: detokenized, used: [...views.keys()], least, flowBack };
  }

  private async detokenized(
    caller: Caller,
    body: unknown,
    permission: 'token:read' | 'token:use',
  ): Promise<{ body: unknown; views: ReadonlyMap<string, ShownToken>; least: UseInsight | null; flowBack: FlowBackSource[] }> {
    // Every expression and filter chain is read before any token is.
    const plan = planDetokenize(body, { engine: this.engine });
    const views = new Map<string, ShownToken>();
    const readInsight = new Map<string, UseInsight>();
    /** A used token the caller may not read whole: its data, and the view that stands in for it in what flows back. */
    const flowBack: FlowBackSource[] = [];
    // Every id is looked up the same way, whatever an earlier one gave, so neither the answer nor its timing tells a
    // missing token from one no rule covers.
    for (const [i, id] of plan.tokenIds.entries()) {
      if (i > 0) await nextTurn();
      const found = await this.shown(caller, id, permission);
      if (!found) continue;
      views.set(id, found.view);
      readInsight.set(id, found.read);
      if (permission === 'token:use' && found.read !== 'reveal' && found.view.transform === 'reveal') {
        flowBack.push({ tokenId: id, value: found.view.data, replacement: await this.readView(found.token, found.read) });
      }
    }
    // Before any filter runs: a filter's error must not answer for data the caller may not see either.
    if (permission === 'token:use') assertShapingRevealed(plan, readInsight);
    const detokenized = await inTurns(detokenizeSteps(plan, views, this.engine));
    return { body: detokenized, views, least: leastInsight(readInsight.values()), flowBack };
  }

  /** What the caller's token:read rule shows of a token it may not see whole: its mask, else nothing (REDACTED_VIEW). */
  private async readView(token: TokenRecord, read: UseInsight): Promise<string> {
    if (read !== 'mask' || token.masked === null) return REDACTED_VIEW;
    try {
      return await openSealed(this.crypto, token, token.masked, 'mask');
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'not_found') return REDACTED_VIEW;
      throw error;
    }
  }

  /**
   * The token as the caller's rule for `permission` shows it, decrypting only what the transform shows. Null (the
   * domain's one "not found" 400) when it is missing, expired, another tenant's, deleted (its key shredded) or no rule
   * covers it.
   */
  private async shown(
    caller: Caller,
    id: string,
    permission: 'token:read' | 'token:use',
  ): Promise<{ view: ShownToken; read: UseInsight; token: TokenRecord } | null> {
    const token = await this.index.get(caller.principal.tenantId, id, caller.now.getTime());
    const rule = token && selectRule(caller.principal.accessRules, token.containers, permission);
    if (!token || !rule) return null;
    const read = selectRule(caller.principal.accessRules, token.containers, 'token:read')?.transform ?? 'none';
    try {
      return { view: await this.view(token, permission === 'token:use' ? { transform: 'reveal' } : rule), read, token };
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

