// Token use cases: seal (encrypt, fingerprint, hash) before deciding, and ask the access policy (libs/domain
// token-access.policy.ts) what each caller may see and change. Plaintext lives only in memory for one request.
import {
  AccessRule,
  accessScope,
  assertMayRederive,
  assertMoveRevealsNoMore,
  CommandContext,
  deduplicationRule,
  decideToken,
  DomainError,
  draftOf,
  evolveToken,
  ExpressionEngine,
  forbidden,
  initialTokenState,
  notFound,
  parseTokenData,
  patchRederives,
  PreparedToken,
  QueryNode,
  selectRule,
  TokenCommand,
  TokenContent,
  TokenCrypto,
  TokenDraft,
  TokenEvent,
  TokenRecord,
  TokenState,
  tokenContent,
  tokenStream,
  validateCreateToken,
  validateTokenPatch,
  visibleToken,
} from '@vault/domain';
import type { CommandOutcome, CommandRunner } from '../commands/command-runner';
import { currentRequestContext } from '../request-context';
import type { ProjectionWaiter } from '../projections/projector';
import type { IdGenerator } from '../ports/system';
import type { TokenSearchIndex } from '../ports/token-search-index';
import type { Principal } from './principal';
import { openSealed, toTokenView, TokenView } from './token-view';

const aggregate = {
  evolve: (state: TokenState | null, event: TokenEvent) => evolveToken(state ?? initialTokenState(), event),
  decide: (command: TokenCommand, state: TokenState | null, ctx: CommandContext) => decideToken(command, state ?? initialTokenState(), ctx),
};

export interface CreatedToken {
  token: TokenView;
  /** false when deduplicate_token returned an existing token. */
  created: boolean;
}

export class TokensService {
  constructor(
    private readonly runner: CommandRunner,
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly ids: IdGenerator,
    /** Follows TokenDeleted events and destroys data keys; a delete answers once it has passed the event (or timed out). */
    private readonly shredder: { waiter: ProjectionWaiter; timeoutMs: number },
  ) {}

  async create(principal: Principal, ctx: CommandContext, body: unknown): Promise<CreatedToken> {
    const valid = validateCreateToken(body, { now: ctx.now, engine: this.engine });
    const rules = principal.accessRules;
    const rule = selectRule(rules, valid.draft.containers, 'token:create');
    if (!rule) throw forbidden("No access rule of this application grants token:create on the token's containers.");
    const tenantId = principal.tenantId;
    const fingerprint = this.crypto.fingerprint(tenantId, valid.draft.type, valid.prepared.fingerprint_input);
    if (valid.deduplicate_token) {
      const existing = await this.findDuplicate(tenantId, rules, valid.draft.type, fingerprint, ctx.now);
      if (existing) return { token: await toTokenView(existing, deduplicationRule(rules, existing)!, this.crypto), created: false };
    }
    const id = valid.id ?? this.ids.newId();
    const outcome = await this.runner.run(
      aggregate,
      tokenStream(tenantId, id),
      async (state): Promise<TokenCommand> => {
        // Checked before sealing, so a conflicting id never leaves a data key behind.
        if (state && state.status !== 'absent') throw new DomainError('conflict', 'A token with this id already exists.');
        return { type: 'CreateToken', data: { id, content: await this.seal(tenantId, id, valid.draft, valid.prepared, fingerprint) } };
      },
      ctx,
    );
    return { token: await toTokenView(activeToken(outcome.state), rule, this.crypto), created: true };
  }

  async get(principal: Principal, id: string, now: Date): Promise<TokenView> {
    const token = await this.index.get(principal.tenantId, id, now.getTime());
    const rules = principal.accessRules;
    const rule = token && selectRule(rules, token.containers, 'token:read');
    if (!token || !rule) throw notFound('Token');
    return toTokenView(token, rule, this.crypto);
  }

  async update(principal: Principal, ctx: CommandContext, id: string, body: unknown): Promise<TokenView> {
    const rules = principal.accessRules;
    let responseRule: AccessRule | null = null;
    const outcome = await this.runner.run(
      aggregate,
      tokenStream(principal.tenantId, id),
      async (state): Promise<TokenCommand> => {
        const current = visibleToken(state ?? initialTokenState(), principal.tenantId, ctx.now);
        const updateRule = current && selectRule(rules, current.containers, 'token:update');
        if (!current || !updateRule) throw notFound('Token');
        // Before anything is evaluated on the stored data: even an evaluation error would answer for data not shown.
        // A body that is no object is validateTokenPatch's 400; the policy reads it as an empty patch meanwhile.
        const fields = isPatchObject(body) ? body : {};
        assertMayRederive(updateRule, fields, current);
        // Neither new data nor a changed expression: the derived values stand as stored, and nothing is evaluated.
        const rederives = patchRederives(fields, current);
        const plaintext = await openSealed(this.crypto, current, current.encrypted, 'data');
        const patch = validateTokenPatch(body, draftOf(current, parseTokenData(current.type, plaintext)), {
          now: ctx.now,
          engine: this.engine,
          evaluate: rederives,
        });
        assertMoveRevealsNoMore(rules, fields, current.containers, patch.draft.containers);
        responseRule = selectRule(rules, patch.draft.containers, 'token:update');
        if (!responseRule) throw forbidden("No access rule of this application grants token:update on the token's new containers.");
        if (patch.prepared === null) {
          const { containers, metadata, expires_at } = patch.draft;
          const { type: _type, ...kept } = tokenContentOf(current);
          return { type: 'UpdateToken', data: { id, content: { ...kept, containers, metadata, expires_at } } };
        }
        const fingerprint = this.crypto.fingerprint(current.tenant_id, current.type, patch.prepared.fingerprint_input);
        const { type: _type, ...content } = await this.seal(current.tenant_id, id, patch.draft, patch.prepared, fingerprint);
        return { type: 'UpdateToken', data: { id, content } };
      },
      ctx,
    );
    return toTokenView(activeToken(outcome.state), responseRule!, this.crypto);
  }

  async delete(principal: Principal, ctx: CommandContext, id: string): Promise<void> {
    const rules = principal.accessRules;
    const outcome = await this.runner.run(
      aggregate,
      tokenStream(principal.tenantId, id),
      (state): TokenCommand => {
        const current = visibleToken(state ?? initialTokenState(), principal.tenantId, ctx.now);
        if (!current || !selectRule(rules, current.containers, 'token:delete')) throw notFound('Token');
        return { type: 'DeleteToken', data: { id } };
      },
      ctx,
    );
    await this.awaitShredding(outcome.position);
  }

  /** The expiry sweep: deletes one expired token (system actor); the shredder destroys its key like any delete's. */
  async expire(ctx: CommandContext, tenantId: string, id: string): Promise<void> {
    const outcome = await this.runner.run(
      aggregate,
      tokenStream(tenantId, id),
      { type: 'DeleteToken', data: { id, reason: 'expired' } } as TokenCommand,
      { ...ctx, tenantId },
    );
    await this.awaitShredding(outcome.position);
  }

  /**
   * The data key is destroyed by the shredder, which follows TokenDeleted events from its own checkpoint and retries
   * until it succeeds, so a crash or a failing key store never leaves a deleted token's key behind for good.
   */
  private async awaitShredding(position: CommandOutcome<unknown, unknown>['position']): Promise<void> {
    if (position === null) return;
    const done = await this.shredder.waiter.waitFor(position, this.shredder.timeoutMs);
    const context = currentRequestContext();
    if (!done && context) context.projectionPending = true;
  }

  /** The newest live token with this type and fingerprint that one of the caller's token:create rules covers. */
  private async findDuplicate(tenantId: string, rules: readonly AccessRule[], type: string, fingerprint: string, now: Date): Promise<TokenRecord | null> {
    const scope = accessScope(rules, 'token:create');
    if (scope === 'nothing') return null;
    const match: QueryNode = {
      kind: 'and',
      children: [{ kind: 'term', field: 'fingerprint', value: fingerprint }, { kind: 'term', field: 'type', value: type }, ...(scope ? [scope] : [])],
    };
    const page = await this.index.search({ tenantId, query: match, now: now.getTime(), page: 1, size: 1 });
    return page.items[0] ?? null;
  }

  private async seal(tenantId: string, id: string, draft: TokenDraft, prepared: PreparedToken, fingerprint: string) {
    const encrypted = await this.crypto.encrypt(tenantId, id, prepared.plaintext);
    const masked = prepared.masked === null ? null : await this.crypto.encrypt(tenantId, id, prepared.masked, 'mask');
    const search_hashes = [...new Set(prepared.search_values.map((value) => this.crypto.searchHash(tenantId, value)))];
    return tokenContent(draft, { encrypted, masked, fingerprint, search_hashes });
  }
}

/** The stored content of a token: what an update that re-derives nothing carries over unchanged. */
const tokenContentOf = (token: TokenRecord): TokenContent => ({
  type: token.type,
  encrypted: token.encrypted,
  fingerprint: token.fingerprint,
  fingerprint_expression: token.fingerprint_expression,
  mask: token.mask,
  masked: token.masked,
  containers: token.containers,
  metadata: token.metadata,
  search_indexes: token.search_indexes,
  search_hashes: token.search_hashes,
  expires_at: token.expires_at,
});

const isPatchObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

function activeToken(state: TokenState | null): TokenRecord {
  if (!state || state.status !== 'active') throw new Error('The token is not active after the command.');
  return state.token;
}
