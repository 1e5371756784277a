// The tokenization POST /tokenize and a reactor's `tokenize` share. The domain reads the body (tokenize.plan.ts), the
// access policy is asked about every token before anything is created, the tokens are created or deduplicated as
// POST /tokens does (in one batch), and each is shown as the caller's rule does. The caller is a parameter, so a
// reactor's result can be tokenized as the reactor's application.
import {
  assertShownNoMoreThan,
  createRulesFor,
  DomainError,
  planTokenizeSteps,
  tokenDecider,
  tokenStream,
  type AccessRule,
  type ExpressionEngine,
  type PlannedToken,
} from '@vault/domain';
import { recordAccess } from '../audit/record-access';
import type { CommandRunner } from '../commands/command-runner';
import type { AccessLog } from '../ports/access-log';
import type { IdGenerator } from '../ports/system';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { inTurns, nextTurn } from '../shared/turns';
import { contextOf, type Caller } from '../shared/use-case';
import { activeToken, createTokenCommand } from '../tokens/create-token-steps';
import { findDuplicateView } from '../tokens/deduplicate-token';
import { tokenFingerprint } from '../tokens/sealing/seal-token';
import { toTokenView, type TokenView } from '../tokens/token-view';
import { cappedView, duplicateOnBehalf, idOnlyCap, idOnlyView, withoutDerivedValues, type IdOnlyView, type OnBehalfOf } from './on-behalf-of';

/** A token to create: where it sits in the body, and what POST /tokens would create for it. */
interface Creation {
  planned: PlannedToken;
  id: string;
  fingerprint: string;
  rule: AccessRule;
}

/** What goes back at one place of the body: a token found by deduplication, or the creation at that index. */
type Result = { found: TokenView | IdOnlyView } | { created: number };

export class TokenizeRequests {
  constructor(
    private readonly runner: CommandRunner,
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly ids: IdGenerator,
    private readonly access: AccessLog,
  ) {}

  /** Tokenizes `body` as `caller`: the answer has the body's shape, each request or leaf replaced by its token. */
  async tokenize(caller: Caller, body: unknown, onBehalfOf?: OnBehalfOf): Promise<unknown> {
    const ctx = contextOf(caller);
    // Every request is validated before anything else: one 400 naming every bad path.
    const plan = await inTurns(planTokenizeSteps(body, { now: ctx.now, engine: this.engine }));
    const { tenantId, accessRules: rules } = caller.principal;
    const createRules = createRulesFor(rules, plan.requests);
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
      // of 100 from holding it past the 50 ms any request may.
      if (i > 0) await nextTurn();
      // Made from data the caller does not see whole: nothing derived from it, and no deduplication (whether an
      // existing token matches would tell about the data).
      const request = idOnly ? withoutDerivedValues(planned.request, this.ids.newId()) : planned.request;
      const fingerprint = tokenFingerprint(this.crypto, tenantId, request.draft.type, request.prepared);
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
          ? await duplicateOnBehalf(this.index, this.crypto, lookup, onBehalfOf)
          : await findDuplicateView(this.index, this.crypto, lookup);
        if (found) {
          if (found.revealed) revealed.add(found.view.id);
          results.push({ found: idOnly ? idOnlyView(found.view) : found.view });
          continue;
        }
      }
      newest.set(key, creations.length);
      results.push({ created: creations.length });
      creations.push({ planned: { ...planned, request }, id: request.id ?? this.ids.newId(), fingerprint, rule: createRules[i] });
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
      else if (onBehalfOf?.cap != null) created.push(await cappedView(token, onBehalfOf.rules, onBehalfOf.cap, this.crypto));
      // The plaintext and mask just sealed are what the envelopes hold: shown without opening them again.
      else created.push(await toTokenView(token, rule, this.crypto, planned.request.prepared));
    }
    const shown = results.map((result) => ('found' in result ? result.found : created[result.created]));
    if (revealed.size > 0) {
      await recordAccess(
        this.access,
        onBehalfOf?.invoker ?? caller,
        [...revealed].map((id) => ({ entity_type: 'token' as const, entity_id: id, operation: 'reveal' as const, via: 'dedupe' as const })),
      );
    }
    return idOnly ? shown : plan.rebuild(shown);
  }
}

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
