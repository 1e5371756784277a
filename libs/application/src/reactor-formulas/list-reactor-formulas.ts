// GET /reactor-formulas: a page of the tenant's own and the official formulas.
import type { FormulaListQuery, FormulaReadModel, Page } from '../ports/read-models';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toFormulaView, type FormulaView } from './formula-view';

export class ListReactorFormulasQuery extends VaultQuery<Page<FormulaView>> {
  constructor(
    readonly caller: Caller,
    readonly query: FormulaListQuery,
  ) {
    super();
  }
}

export class ListReactorFormulasHandler implements UseCaseHandler<ListReactorFormulasQuery> {
  constructor(private readonly readModel: FormulaReadModel) {}

  async execute({ caller, query }: ListReactorFormulasQuery): Promise<Page<FormulaView>> {
    const page = await this.readModel.list(caller.principal.tenantId, query);
    return { total: page.total, items: page.items.map(toFormulaView) };
  }
}
