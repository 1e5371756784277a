// GET /tokens/{id}: the token as the caller's token:read rule shows it; a reveal is an access, recorded first.
import { ruleFor } from '@vault/domain';
import { recordAccess } from '../audit/record-access';
import type { AccessLog } from '../ports/access-log';
import type { TokenCrypto } from '../ports/token-crypto';
import type { TokenSearchIndex } from '../ports/token-search-index';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toTokenView, type TokenView } from './token-view';

export class GetTokenQuery extends VaultQuery<TokenView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
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
    const rule = ruleFor(caller.principal.accessRules, token, 'token:read');
    const view = await toTokenView(token!, rule, this.crypto);
    // A mask or redact read shows no plaintext and is no access record.
    if (rule.transform === 'reveal') {
      await recordAccess(this.access, caller, [{ entity_type: 'token', entity_id: view.id, operation: 'reveal', via: 'get' }]);
    }
    return view;
  }
}
