// Tokens: the commands and queries, and their handlers, which are the use cases. A handler seals (encrypts,
// fingerprints, hashes) before the decider records anything, and asks the access policy (libs/domain
// token-access.policy.ts) what each caller may see and change. Plaintext lives only in memory for one request.
import { AccessRule, accessScope, assertMayRederive, assertMoveRevealsNoMore, assertTokenIdFree, CommandContext, deduplicationRule, DomainError, draftOf, ExpressionEngine, findVisibleToken, forbidden, normalizeSearchValue, notFound, parseQuery, parseTokenData, patchRederives, PreparedToken, QueryNode, selectRule, TokenCommand, TokenContent, tokenContent, tokenDecider, TokenDraft, TokenRecord, TokenState, tokenStream, validateCreateToken, validateTokenPatch, ValidTokenCreate } from '@vault/domain';
import type { TokenCrypto } from '../ports/token-crypto';
import { recordAccess } from '../audit/record-access';
import type { CommandRunner } from '../commands/command-runner';
import type { AccessLog } from '../ports/access-log';
import type { Page } from '../ports/read-models';
import type { IdGenerator } from '../ports/system';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { openSealed, toTokenView, TokenView } from './token-view';
import { awaitShredding, type KeyShredding } from '../commands/await-shredding';
import { Caller, contextOf, UseCaseHandler, VaultCommand, VaultQuery } from '../shared/use-case';

export interface CreatedToken {
  token: TokenView;
  /** false when deduplicate_token returned an existing token. */
  created: boolean;
}

export interface TokenSearchInput {
  query: string | null;
  page: number;
  size: number;
}

export class CreateTokenCommand extends VaultCommand<CreatedToken> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class UpdateTokenCommand extends VaultCommand<TokenView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly patch: unknown,
  ) {
    super();
  }
}

export class DeleteTokenCommand extends VaultCommand<void> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

/** The expiry sweep's delete of one expired token (system actor); the shredder destroys its key like any delete's. */
export class ExpireTokenCommand extends VaultCommand<void> {
  constructor(
    readonly tenantId: string,
    readonly id: string,
    readonly now: Date,
  ) {
    super();
  }
}

export class GetTokenQuery extends VaultQuery<TokenView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

/**
 * POST /tokens/search: the query, its data values hashed, ANDed with the access-rule container scope. The scope is part
 * of the query the index runs, so tokens no rule covers are neither returned nor counted.
 */
export class SearchTokensQuery extends VaultQuery<Page<TokenView>> {
  constructor(
    readonly caller: Caller,
    readonly input: TokenSearchInput,
  ) {
    super();
  }
}

/**
 * The key shredder follows TokenDeleted events from its own checkpoint and destroys data keys, retrying until it
 * succeeds, so a crash or a failing key store never leaves a deleted token's key behind for good. A delete answers
 * once the shredder has passed its event, or after `timeoutMs` with X-Projection-Pending.
 */
export type { KeyShredding } from '../commands/await-shredding';

export class CreateTokenHandler implements UseCaseHandler<CreateTokenCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly ids: IdGenerator,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, body }: CreateTokenCommand): Promise<CreatedToken> {
    const ctx = contextOf(caller);
    const valid = validateCreateToken(body, { now: ctx.now, engine: this.engine });
    const rules = caller.principal.accessRules;
    const rule = selectRule(rules, valid.draft.containers, 'token:create');
    if (!rule) throw forbidden("No access rule of this application grants token:create on the token's containers.");
    const tenantId = caller.principal.tenantId;
    const fingerprint = tokenFingerprint(this.crypto, tenantId, valid);
    if (valid.deduplicate_token) {
      const existing = await findDuplicateView(this.index, this.crypto, { tenantId, rules, type: valid.draft.type, fingerprint, now: ctx.now });
      if (existing) {
        // The stored token, which may hold more than this request sent (fields the fingerprint leaves out): a reveal.
        if (existing.revealed) await recordAccess(this.access, caller, [{ entity_type: 'token', entity_id: existing.view.id, operation: 'reveal', via: 'dedupe' }]);
        return { token: existing.view, created: false };
      }
    }
    const id = valid.id ?? this.ids.newId();
    // A generated id names a stream nobody has written: no need to read it first (a caller's id may be taken).
    const { state } = await this.runner.run(tokenDecider, tokenStream(tenantId, id), createTokenCommand(this.crypto, tenantId, id, valid, fingerprint), ctx, {
      freshStream: valid.id === null,
    });
    // The plaintext and mask this request sealed are what the token's envelopes hold: no need to open them again.
    return { token: await toTokenView(activeToken(state), rule, this.crypto, valid.prepared), created: true };
  }
}

// The steps of a token create that POST /tokens and POST /tokenize share.

/** The fingerprint a create request's token gets: what deduplication compares. */
export const tokenFingerprint = (crypto: TokenCrypto, tenantId: string, valid: ValidTokenCreate): string =>
  crypto.fingerprint(tenantId, valid.draft.type, valid.prepared.fingerprint_input);

export interface DuplicateLookup {
  tenantId: string;
  rules: readonly AccessRule[];
  type: string;
  fingerprint: string;
  now: Date;
}

/**
 * deduplicate_token (API.md "What a write may reveal"): the newest live token with this type and fingerprint that one
 * of the caller's token:create rules covers, shown under the rule for ITS containers; null when there is none, so a
 * token outside those rules does not exist for this caller. The scope is part of the search itself.
 */
/** A deduplicated token as the caller is shown it, and whether that showed its stored data in plaintext (an access). */
export interface DuplicateView {
  view: TokenView;
  revealed: boolean;
}

export async function findDuplicateView(index: TokenSearchIndex, crypto: TokenCrypto, lookup: DuplicateLookup): Promise<DuplicateView | null> {
  const scope = accessScope(lookup.rules, 'token:create');
  if (scope === 'nothing') return null;
  const match: QueryNode = {
    kind: 'and',
    children: [
      { kind: 'term', field: 'fingerprint', value: lookup.fingerprint },
      { kind: 'term', field: 'type', value: lookup.type },
      ...(scope ? [scope] : []),
    ],
  };
  const page = await index.search({ tenantId: lookup.tenantId, query: match, now: lookup.now.getTime(), page: 1, size: 1 });
  const existing = page.items[0];
  if (!existing) return null;
  const rule = deduplicationRule(lookup.rules, existing)!;
  return { view: await toTokenView(existing, rule, crypto), revealed: rule.transform === 'reveal' };
}

/**
 * The CreateToken command for `id`, built on the stream's current state: the decider's own rule is asked before
 * sealing, so a taken id never leaves a data key behind.
 */
export const createTokenCommand =
  (crypto: TokenCrypto, tenantId: string, id: string, valid: ValidTokenCreate, fingerprint: string) =>
  async (current: TokenState): Promise<TokenCommand> => {
    assertTokenIdFree(current);
    return { type: 'CreateToken', data: { id, content: await seal(crypto, tenantId, id, valid.draft, valid.prepared, fingerprint) } };
  };

export class UpdateTokenHandler implements UseCaseHandler<UpdateTokenCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly crypto: TokenCrypto,
    private readonly engine: ExpressionEngine,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, id, patch: body }: UpdateTokenCommand): Promise<TokenView> {
    const ctx = contextOf(caller);
    const rules = caller.principal.accessRules;
    let responseRule: AccessRule | null = null;
    const { state } = await this.runner.run(
      tokenDecider,
      tokenStream(caller.principal.tenantId, id),
      async (state): Promise<TokenCommand> => {
        // The patch is merged into the stored data, so the token must be found (the decider's rule) and the caller's
        // update rule asked before anything is decrypted.
        const current = findVisibleToken(state, ctx);
        const updateRule = selectRule(rules, current.containers, 'token:update');
        if (!updateRule) throw notFound('Token');
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
        const { type: _type, ...content } = await seal(this.crypto, current.tenant_id, id, patch.draft, patch.prepared, fingerprint);
        return { type: 'UpdateToken', data: { id, content } };
      },
      ctx,
    );
    const view = await toTokenView(activeToken(state), responseRule!, this.crypto);
    // An answer that reveals stored data the caller did not send in this patch (a move, new metadata, an expiry) is a
    // read of plaintext: recorded before it leaves. A patch with new `data` shows what the caller sent.
    const sentData = isPatchObject(body) && Object.hasOwn(body, 'data') && body.data !== null;
    if ((responseRule as AccessRule | null)?.transform === 'reveal' && !sentData) {
      await recordAccess(this.access, caller, [{ entity_type: 'token', entity_id: view.id, operation: 'reveal', via: 'update' }]);
    }
    return view;
  }
}

export class DeleteTokenHandler implements UseCaseHandler<DeleteTokenCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ caller, id }: DeleteTokenCommand): Promise<void> {
    const ctx = contextOf(caller);
    const rules = caller.principal.accessRules;
    const { position } = await this.runner.run(
      tokenDecider,
      tokenStream(caller.principal.tenantId, id),
      (state): TokenCommand => {
        // The caller's delete rule is asked of the token the decider finds; without one the token is as missing.
        const current = findVisibleToken(state, ctx);
        if (!selectRule(rules, current.containers, 'token:delete')) throw notFound('Token');
        return { type: 'DeleteToken', data: { id } };
      },
      ctx,
    );
    await awaitShredding(this.shredding, position);
  }
}

export class ExpireTokenHandler implements UseCaseHandler<ExpireTokenCommand> {
  constructor(
    private readonly runner: CommandRunner,
    private readonly shredding: KeyShredding,
  ) {}

  async execute({ tenantId, id, now }: ExpireTokenCommand): Promise<void> {
    const ctx: CommandContext = { tenantId, actor: { type: 'system', id: 'expiry-sweep' }, now, correlationId: `expiry-${id}` };
    const command: TokenCommand = { type: 'DeleteToken', data: { id, reason: 'expired' } };
    const { position } = await this.runner.run(tokenDecider, tokenStream(tenantId, id), command, ctx);
    await awaitShredding(this.shredding, position);
  }
}

export class GetTokenHandler implements UseCaseHandler<GetTokenQuery> {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, id }: GetTokenQuery): Promise<TokenView> {
    const token = await this.index.get(caller.principal.tenantId, id, caller.now.getTime());
    const rule = token && selectRule(caller.principal.accessRules, token.containers, 'token:read');
    if (!token || !rule) throw notFound('Token');
    const view = await toTokenView(token, rule, this.crypto);
    // A mask or redact read shows no plaintext and is no access record.
    if (rule.transform === 'reveal') {
      await recordAccess(this.access, caller, [{ entity_type: 'token', entity_id: token.id, operation: 'reveal', via: 'get' }]);
    }
    return view;
  }
}

export class SearchTokensHandler implements UseCaseHandler<SearchTokensQuery> {
  constructor(
    private readonly index: TokenSearchIndex,
    private readonly crypto: TokenCrypto,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, input }: SearchTokensQuery): Promise<Page<TokenView>> {
    const { principal } = caller;
    const parsed = parseQuery(input.query);
    const rules = principal.accessRules;
    const scope = accessScope(rules, 'token:search');
    if (scope === 'nothing') return { total: 0, items: [] };
    const user = parsed && this.hashData(parsed, principal.tenantId);
    const query: QueryNode | null = scope && user ? { kind: 'and', children: [scope, user] } : (scope ?? user);
    const page = await this.index.search({ tenantId: principal.tenantId, query, now: caller.now.getTime(), page: input.page, size: input.size });
    const shown = await Promise.all(
      page.items.map((token) => {
        // The scope guarantees a rule grants token:search on one of the token's containers.
        const rule = selectRule(rules, token.containers, 'token:search')!;
        // A token whose key a delete in flight has just shredded is left out, not a failed search.
        return toTokenView(token, rule, this.crypto).then(
          (view) => ({ view, revealed: rule.transform === 'reveal' }),
          (error: unknown) => {
            if (error instanceof DomainError && error.kind === 'not_found') return null;
            throw error;
          },
        );
      }),
    );
    const items = shown.filter((item) => item !== null);
    // One record per search that shows plaintext: how many tokens it revealed, never the query.
    const revealed = items.filter((item) => item.revealed).length;
    if (revealed > 0) {
      await recordAccess(this.access, caller, [{ entity_type: 'token', entity_id: null, operation: 'search', via: 'search', count: revealed }]);
    }
    return { total: page.total, items: items.map(({ view }) => view) };
  }

  /** The read model holds keyed hashes of normalised values only, so `data:` values are hashed the same way. */
  private hashData(node: QueryNode, tenantId: string): QueryNode {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { ...node, children: node.children.map((child) => this.hashData(child, tenantId)) };
      case 'not':
        return { ...node, child: this.hashData(node.child, tenantId) };
      case 'data':
        return { kind: 'data', value: this.crypto.searchHash(tenantId, normalizeSearchValue(node.value)) };
      default:
        return node;
    }
  }
}


const seal = async (crypto: TokenCrypto, tenantId: string, id: string, draft: TokenDraft, prepared: PreparedToken, fingerprint: string) => {
  const encrypted = await crypto.encrypt(tenantId, id, prepared.plaintext);
  const masked = prepared.masked === null ? null : await crypto.encrypt(tenantId, id, prepared.masked, 'mask');
  const search_hashes = [...new Set(prepared.search_values.map((value) => crypto.searchHash(tenantId, value)))];
  return tokenContent(draft, { encrypted, masked, fingerprint, search_hashes });
};

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

/** The token a successful create or update leaves. */
export function activeToken(state: TokenState): TokenRecord {
  if (state.status !== 'active') throw new Error('The token is not active after the command.');
  return state.token;
}
