// POST /tokenize: every request or leaf of the body becomes a token, in one write, as the caller's rules allow.
import { VaultCommand, type Caller, type UseCaseHandler } from '../shared/use-case';
import type { TokenizeRequests } from './tokenize-requests';

/** Tokenizes `body` as `caller`: the answer has the body's shape, each request or leaf replaced by its token. */
export class TokenizeCommand extends VaultCommand<unknown> {
  constructor(
    readonly caller: Caller,
    readonly body: unknown,
  ) {
    super();
  }
}

export class TokenizeHandler implements UseCaseHandler<TokenizeCommand> {
  constructor(private readonly requests: TokenizeRequests) {}

  execute({ caller, body }: TokenizeCommand): Promise<unknown> {
    return this.requests.tokenize(caller, body);
  }
}
