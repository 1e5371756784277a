// POST /detokenize (`token:read`): each token as the caller's rule shows it, and one `reveal` access record per distinct
// token shown in plaintext, durable before the answer leaves.
import { recordAccess } from '../audit/record-access';
import type { AccessLog } from '../ports/access-log';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import type { Detokenizer } from './detokenizer';

/** Detokenizes `body` as `caller`: every detokenization expression replaced by the token as the caller's rule shows it. */
export class DetokenizeQuery extends VaultQuery<unknown> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class DetokenizeHandler implements UseCaseHandler<DetokenizeQuery> {
  constructor(
    private readonly detokenizer: Detokenizer,
    private readonly access: AccessLog,
  ) {}

  async execute({ caller, body }: DetokenizeQuery): Promise<unknown> {
    const { body: answer, views } = await this.detokenizer.detokenize(caller, body, 'token:read');
    const revealed = [...views].filter(([, view]) => view.transform === 'reveal').map(([id]) => id);
    await recordAccess(
      this.access,
      caller,
      revealed.map((id) => ({ entity_type: 'token', entity_id: id, operation: 'reveal', via: 'detokenize' })),
    );
    return answer;
  }
}
