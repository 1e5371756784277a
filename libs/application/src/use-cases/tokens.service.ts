// Token use cases: seal (encrypt, fingerprint, hash) before deciding, apply access rules on the way out,
// and shred the data key on delete. Plaintext lives only in memory for the duration of a request.
import {
  AccessRule,
  CommandContext,
  decideToken,
  DomainError,
  draftOf,
  effectiveRules,
  evolveToken,
  ExpressionEngine,
  forbidden,
  initialTokenState,
  notFound,
  parseTokenData,
  PreparedToken,
  selectRule,
  TokenCommand,
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
import type { CommandRunner } from '../commands/command-runner';
import type { IdGenerator } from '../ports/system';
import type { TokenSearchIndex } from '../ports/token-search-index';
import type { Principal } from './principal';
import { toTokenView, TokenView } from './token-view';

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
  ) {}

  async create(principal: Principal, ctx: CommandContext, body: unknown): Promise<CreatedToken> {
    const valid = validateCreateToken(body, { now: ctx.now, engine: this.engine });
    const rules = effectiveRules({ permissions: principal.rawPermissions, rules: principal.rules });
    const rule = selectRule(rules, valid.draft.containers, 'token:create');
    if (!rule) throw forbidden("No access rule of this application grants token:create on the token's containers.");
    const tenantId = principal.tenantId;
    const fingerprint = this.crypto.fingerprint(tenantId, valid.draft.type, valid.prepared.fingerprint_input);
    if (valid.deduplicate_token) {
      const existing = await this.index.findByFingerprint(tenantId, valid.draft.type, fingerprint, ctx.now.getTime());
      if (existing) return { token: await this.present(existing, rules, 'token:create', rule), created: false };
    }
    const id = valid.id ?? this.ids.newId();
    const outcome = await this.runner.run(
      aggregate,
      tokenStream(id),
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
    const rules = effectiveRules({ permissions: principal.rawPermissions, rules: principal.rules });
    if (!token) throw notFound('Token');
    return this.present(token, rules, 'token:read');
  }

  async update(principal: Principal, ctx: CommandContext, id: string, body: unknown): Promise<TokenView> {
    const rules = effectiveRules({ permissions: principal.rawPermissions, rules: principal.rules });
    let responseRule: AccessRule | null = null;
    const outcome = await this.runner.run(
      aggregate,
      tokenStream(id),
      async (state): Promise<TokenCommand> => {
        const current = visibleToken(state ?? initialTokenState(), principal.tenantId, ctx.now);
        if (!current || !selectRule(rules, current.containers, 'token:update')) throw notFound('Token');
        const plaintext = await this.crypto.decrypt(current.tenant_id, current.id, current.encrypted);
        const patch = validateTokenPatch(body, draftOf(current, parseTokenData(current.type, plaintext)), { now: ctx.now, engine: this.engine });
        responseRule = selectRule(rules, patch.draft.containers, 'token:update');
        if (!responseRule) throw forbidden("No access rule of this application grants token:update on the token's new containers.");
        const fingerprint = this.crypto.fingerprint(current.tenant_id, current.type, patch.prepared.fingerprint_input);
        const { type: _type, ...content } = await this.seal(current.tenant_id, id, patch.draft, patch.prepared, fingerprint);
        return { type: 'UpdateToken', data: { id, content } };
      },
      ctx,
    );
    return toTokenView(activeToken(outcome.state), responseRule!, this.crypto);
  }

  async delete(principal: Principal, ctx: CommandContext, id: string): Promise<void> {
    const rules = effectiveRules({ permissions: principal.rawPermissions, rules: principal.rules });
    await this.runner.run(
      aggregate,
      tokenStream(id),
      (state): TokenCommand => {
        const current = visibleToken(state ?? initialTokenState(), principal.tenantId, ctx.now);
        if (!current || !selectRule(rules, current.containers, 'token:delete')) throw notFound('Token');
        return { type: 'DeleteToken', data: { id } };
      },
      ctx,
    );
    // After the event is durable: from here on no copy of the ciphertext can be opened (crypto-shredding).
    await this.crypto.destroyDataKey(principal.tenantId, id);
  }

  /** The expiry sweep: deletes one expired token and shreds its key (system actor). */
  async expire(ctx: CommandContext, tenantId: string, id: string): Promise<void> {
    await this.runner.run(aggregate, tokenStream(id), { type: 'DeleteToken', data: { id, reason: 'expired' } } as TokenCommand, {
      ...ctx,
      tenantId,
    });
    await this.crypto.destroyDataKey(tenantId, id);
  }

  /** Shapes a read-model token for a response under the rule that applies for `permission` (404 when none does). */
  async present(token: TokenRecord, rules: AccessRule[], permission: string, fallback?: AccessRule): Promise<TokenView> {
    const rule = selectRule(rules, token.containers, permission) ?? fallback;
    if (!rule) throw notFound('Token');
    return toTokenView(token, rule, this.crypto);
  }

  private async seal(tenantId: string, id: string, draft: TokenDraft, prepared: PreparedToken, fingerprint: string) {
    const encrypted = await this.crypto.encrypt(tenantId, id, prepared.plaintext);
    const search_hashes = [...new Set(prepared.search_values.map((value) => this.crypto.searchHash(tenantId, value)))];
    return tokenContent(draft, prepared, { encrypted, fingerprint, search_hashes });
  }
}

function activeToken(state: TokenState | null): TokenRecord {
  if (!state || state.status !== 'active') throw new Error('The token is not active after the command.');
  return state.token;
}
