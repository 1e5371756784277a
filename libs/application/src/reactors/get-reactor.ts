// GET /reactors/{id}: the reactor from its read model, its configuration opened (reactor:read holders only reach here).
import { notFound } from '@vault/domain';
import type { FormulaReadModel, ReactorReadModel } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import { toFormulaView } from '../reactor-formulas/formula-view';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toReactorView, type ReactorView } from './reactor-view';
import { openConfiguration } from './sealing/reactor-configuration';

export class GetReactorQuery extends VaultQuery<ReactorView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetReactorHandler implements UseCaseHandler<GetReactorQuery> {
  constructor(
    private readonly reactors: ReactorReadModel,
    private readonly formulas: FormulaReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, id }: GetReactorQuery): Promise<ReactorView> {
    const tenantId = caller.principal.tenantId;
    const reactor = await this.reactors.get(tenantId, id);
    if (!reactor) throw notFound('Reactor');
    const formula = await this.formulas.get(tenantId, reactor.formula_id);
    return toReactorView(reactor, formula && toFormulaView(formula), await openConfiguration(this.crypto, reactor));
  }
}
