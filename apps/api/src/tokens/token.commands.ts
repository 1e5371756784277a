// CQRS commands and queries for tokens; handlers delegate to the framework-free token services.
import { Command, CommandHandler, ICommandHandler, IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { contextFor, CreatedToken, Page, TokenSearchInput, TokenSearchService, TokensService, TokenView } from '@vault/application';
import type { Caller } from '../http/caller';

const ctx = (c: Caller) => contextFor(c.principal, c.now, c.requestId);

export class CreateTokenCommand extends Command<CreatedToken> {
  constructor(readonly caller: Caller, readonly body: unknown) {
    super();
  }
}
export class UpdateTokenCommand extends Command<TokenView> {
  constructor(readonly caller: Caller, readonly id: string, readonly patch: unknown) {
    super();
  }
}
export class DeleteTokenCommand extends Command<void> {
  constructor(readonly caller: Caller, readonly id: string) {
    super();
  }
}
export class GetTokenQuery extends Query<TokenView> {
  constructor(readonly caller: Caller, readonly id: string) {
    super();
  }
}
export class SearchTokensQuery extends Query<Page<TokenView>> {
  constructor(readonly caller: Caller, readonly input: TokenSearchInput) {
    super();
  }
}

@CommandHandler(CreateTokenCommand)
export class CreateTokenHandler implements ICommandHandler<CreateTokenCommand> {
  constructor(private readonly tokens: TokensService) {}
  execute(c: CreateTokenCommand) {
    return this.tokens.create(c.caller.principal, ctx(c.caller), c.body);
  }
}

@CommandHandler(UpdateTokenCommand)
export class UpdateTokenHandler implements ICommandHandler<UpdateTokenCommand> {
  constructor(private readonly tokens: TokensService) {}
  execute(c: UpdateTokenCommand) {
    return this.tokens.update(c.caller.principal, ctx(c.caller), c.id, c.patch);
  }
}

@CommandHandler(DeleteTokenCommand)
export class DeleteTokenHandler implements ICommandHandler<DeleteTokenCommand> {
  constructor(private readonly tokens: TokensService) {}
  execute(c: DeleteTokenCommand) {
    return this.tokens.delete(c.caller.principal, ctx(c.caller), c.id);
  }
}

@QueryHandler(GetTokenQuery)
export class GetTokenHandler implements IQueryHandler<GetTokenQuery> {
  constructor(private readonly tokens: TokensService) {}
  execute(q: GetTokenQuery) {
    return this.tokens.get(q.caller.principal, q.id, q.caller.now);
  }
}

@QueryHandler(SearchTokensQuery)
export class SearchTokensHandler implements IQueryHandler<SearchTokensQuery> {
  constructor(private readonly search: TokenSearchService) {}
  execute(q: SearchTokensQuery) {
    return this.search.search(q.caller.principal, q.input, q.caller.now);
  }
}

export const tokenHandlers = [CreateTokenHandler, UpdateTokenHandler, DeleteTokenHandler, GetTokenHandler, SearchTokensHandler];
