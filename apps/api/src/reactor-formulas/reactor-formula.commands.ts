// CQRS commands and queries for reactor formulas; handlers delegate to the framework-free FormulasService.
import { Command, CommandHandler, ICommandHandler, IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { contextFor, FormulaListQuery, FormulasService, FormulaView, Page } from '@vault/application';
import type { Caller } from '../http/caller';

const ctx = (c: Caller) => contextFor(c.principal, c.now, c.requestId);

export class CreateReactorFormulaCommand extends Command<FormulaView> {
  constructor(readonly caller: Caller, readonly body: unknown) {
    super();
  }
}
export class UpdateReactorFormulaCommand extends Command<FormulaView> {
  constructor(readonly caller: Caller, readonly id: string, readonly body: unknown) {
    super();
  }
}
export class DeleteReactorFormulaCommand extends Command<void> {
  constructor(readonly caller: Caller, readonly id: string) {
    super();
  }
}
export class GetReactorFormulaQuery extends Query<FormulaView> {
  constructor(readonly tenantId: string, readonly id: string) {
    super();
  }
}
export class ListReactorFormulasQuery extends Query<Page<FormulaView>> {
  constructor(readonly tenantId: string, readonly query: FormulaListQuery) {
    super();
  }
}

@CommandHandler(CreateReactorFormulaCommand)
export class CreateReactorFormulaHandler implements ICommandHandler<CreateReactorFormulaCommand> {
  constructor(private readonly formulas: FormulasService) {}
  execute(c: CreateReactorFormulaCommand) {
    return this.formulas.create(ctx(c.caller), c.body);
  }
}

@CommandHandler(UpdateReactorFormulaCommand)
export class UpdateReactorFormulaHandler implements ICommandHandler<UpdateReactorFormulaCommand> {
  constructor(private readonly formulas: FormulasService) {}
  execute(c: UpdateReactorFormulaCommand) {
    return this.formulas.update(ctx(c.caller), c.id, c.body);
  }
}

@CommandHandler(DeleteReactorFormulaCommand)
export class DeleteReactorFormulaHandler implements ICommandHandler<DeleteReactorFormulaCommand> {
  constructor(private readonly formulas: FormulasService) {}
  execute(c: DeleteReactorFormulaCommand) {
    return this.formulas.delete(ctx(c.caller), c.id);
  }
}

@QueryHandler(GetReactorFormulaQuery)
export class GetReactorFormulaHandler implements IQueryHandler<GetReactorFormulaQuery> {
  constructor(private readonly formulas: FormulasService) {}
  execute(q: GetReactorFormulaQuery) {
    return this.formulas.get(q.tenantId, q.id);
  }
}

@QueryHandler(ListReactorFormulasQuery)
export class ListReactorFormulasHandler implements IQueryHandler<ListReactorFormulasQuery> {
  constructor(private readonly formulas: FormulasService) {}
  execute(q: ListReactorFormulasQuery) {
    return this.formulas.list(q.tenantId, q.query);
  }
}

export const reactorFormulaHandlers = [
  CreateReactorFormulaHandler,
  UpdateReactorFormulaHandler,
  DeleteReactorFormulaHandler,
  GetReactorFormulaHandler,
  ListReactorFormulasHandler,
];
