// GET /reactor-formulas/{id}: the tenant's own formula or an official one.
import { notFound } from '@vault/domain';
import type { FormulaReadModel } from '../ports/read-models';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toFormulaView, type FormulaView } from './formula-view';

export class GetReactorFormulaQuery extends VaultQuery<FormulaView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetReactorFormulaHandler implements UseCaseHandler<GetReactorFormulaQuery> {
  constructor(private readonly readModel: FormulaReadModel) {}

  async execute({ caller, id }: GetReactorFormulaQuery): Promise<FormulaView> {
    const doc = await this.readModel.get(caller.principal.tenantId, id);
    if (!doc) throw notFound('Reactor formula');
    return toFormulaView(doc);
  }
}
