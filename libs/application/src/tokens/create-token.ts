// POST /tokens: validate, ask the access policy where the token may go, deduplicate if asked, seal, record.
// Plaintext lives only in memory for this one request.
import { ruleToPlace, tokenDecider, tokenStream, validateCreateToken, type ExpressionEngine } from '@vault/domain';
import { recordAccess } from '../audit/record-access';
import type { CommandRunner } from '../commands/command-runner';
import type { AccessLog } from '../ports/access-log';
import type { IdGenerator } from '../ports/system';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { contextOf, VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import { activeToken, createTokenCommand } from './create-token-steps';
import { findDuplicateView } from './deduplicate-token';
import { tokenFingerprint } from './sealing/seal-token';
import { toTokenView, type TokenView } from './token-view';

export interface CreatedToken {
  token: TokenView;
  /** false when deduplicate_token returned an existing token. */
  created: boolean;
}

export class CreateTokenCommand extends VaultCommand<CreatedToken> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

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
    const rule = ruleToPlace(rules, valid.draft.containers, 'token:create');
    const tenantId = caller.principal.tenantId;
    const fingerprint = tokenFingerprint(this.crypto, tenantId, valid.draft.type, valid.prepared);
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
