// PATCH /tokens/{id}: an RFC 7396 merge patch of the stored token, decided on the stream's current state. The access
// policy is asked before anything is decrypted or evaluated, and again for where the patch leaves the token.
import {
  assertMayRederive,
  assertMoveRevealsNoMore,
  draftOf,
  findVisibleToken,
  parseTokenData,
  patchRederives,
  ruleFor,
  ruleToPlace,
  tokenDecider,
  tokenStream,
  validateTokenPatch,
  type AccessRule,
  type ExpressionEngine,
  type TokenCommand,
  type TokenContent,
  type TokenRecord,
} from '@vault/domain';
import { recordAccess } from '../audit/record-access';
import type { CommandRunner } from '../commands/command-runner';
import type { AccessLog } from '../ports/access-log';
import type { TokenCrypto } from '../ports/token-crypto';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { activeToken } from './create-token-steps';
import { openSealed, sealToken, tokenFingerprint } from './sealing/seal-token';
import { toTokenView, type TokenView } from './token-view';

export class UpdateTokenCommand extends VaultCommand<TokenView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
    readonly patch: unknown,
  ) {
    super();
  }
}

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
        const updateRule = ruleFor(rules, current, 'token:update');
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
        responseRule = ruleToPlace(rules, patch.draft.containers, 'token:update');
        if (patch.prepared === null) {
          const { containers, metadata, expires_at } = patch.draft;
          const { type: _type, ...kept } = tokenContentOf(current);
          return { type: 'UpdateToken', data: { id, content: { ...kept, containers, metadata, expires_at } } };
        }
        const fingerprint = tokenFingerprint(this.crypto, current.tenant_id, current.type, patch.prepared);
        const { type: _type, ...content } = await sealToken(this.crypto, current.tenant_id, id, patch.draft, patch.prepared, fingerprint);
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

const isPatchObject = (body: unknown): body is Record<string, unknown> => typeof body === 'object' && body !== null && !Array.isArray(body);
