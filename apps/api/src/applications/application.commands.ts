// CQRS commands and queries for applications; handlers delegate to the framework-free ApplicationsService.
import { Command, CommandHandler, ICommandHandler, IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import {
  ApplicationsService,
  ApplicationView,
  ApplicationWithKey,
  contextFor,
  Page,
  PageRequest,
} from '@vault/application';
import type { ApplicationInput } from '@vault/domain';

import type { Caller } from '../http/caller';

const ctx = (c: Caller) => contextFor(c.principal, c.now, c.requestId);
/** What the caller may grant and touch: management permissions only within its own (the domain checks). */
const held = (c: Caller): readonly string[] => [...c.principal.permissions];

export class CreateApplicationCommand extends Command<ApplicationWithKey> {
  constructor(readonly caller: Caller, readonly input: ApplicationInput) {
    super();
  }
}
export class UpdateApplicationCommand extends Command<ApplicationView> {
  constructor(readonly caller: Caller, readonly id: string, readonly input: ApplicationInput) {
    super();
  }
}
export class RegenerateApplicationKeyCommand extends Command<ApplicationWithKey> {
  constructor(readonly caller: Caller, readonly id: string) {
    super();
  }
}
export class DeleteApplicationCommand extends Command<void> {
  constructor(readonly caller: Caller, readonly id: string) {
    super();
  }
}
export class GetApplicationQuery extends Query<ApplicationView> {
  constructor(readonly tenantId: string, readonly id: string) {
    super();
  }
}
export class ListApplicationsQuery extends Query<Page<ApplicationView>> {
  constructor(readonly tenantId: string, readonly page: PageRequest) {
    super();
  }
}

@CommandHandler(CreateApplicationCommand)
export class CreateApplicationHandler implements ICommandHandler<CreateApplicationCommand> {
  constructor(private readonly service: ApplicationsService) {}
  execute(c: CreateApplicationCommand) {
    return this.service.create(ctx(c.caller), held(c.caller), c.input);
  }
}

@CommandHandler(UpdateApplicationCommand)
export class UpdateApplicationHandler implements ICommandHandler<UpdateApplicationCommand> {
  constructor(private readonly service: ApplicationsService) {}
  execute(c: UpdateApplicationCommand) {
    return this.service.update(ctx(c.caller), held(c.caller), c.id, c.input);
  }
}

@CommandHandler(RegenerateApplicationKeyCommand)
export class RegenerateApplicationKeyHandler implements ICommandHandler<RegenerateApplicationKeyCommand> {
  constructor(private readonly service: ApplicationsService) {}
  execute(c: RegenerateApplicationKeyCommand) {
    return this.service.regenerate(ctx(c.caller), held(c.caller), c.id);
  }
}

@CommandHandler(DeleteApplicationCommand)
export class DeleteApplicationHandler implements ICommandHandler<DeleteApplicationCommand> {
  constructor(private readonly service: ApplicationsService) {}
  execute(c: DeleteApplicationCommand) {
    return this.service.delete(ctx(c.caller), held(c.caller), c.id);
  }
}

@QueryHandler(GetApplicationQuery)
export class GetApplicationHandler implements IQueryHandler<GetApplicationQuery> {
  constructor(private readonly service: ApplicationsService) {}
  execute(q: GetApplicationQuery) {
    return this.service.get(q.tenantId, q.id);
  }
}

@QueryHandler(ListApplicationsQuery)
export class ListApplicationsHandler implements IQueryHandler<ListApplicationsQuery> {
  constructor(private readonly service: ApplicationsService) {}
  execute(q: ListApplicationsQuery) {
    return this.service.list(q.tenantId, q.page);
  }
}

export const applicationHandlers = [
  CreateApplicationHandler,
  UpdateApplicationHandler,
  RegenerateApplicationKeyHandler,
  DeleteApplicationHandler,
  GetApplicationHandler,
  ListApplicationsHandler,
];
