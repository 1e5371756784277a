// GET /reactors: a page of the tenant's reactors, each with its formula and its configuration opened.
import { DomainError } from '@vault/domain';
import type { FormulaReadModel, Page, ReactorListQuery, ReactorReadModel } from '../ports/read-models';
import type { TokenCrypto } from '../ports/token-crypto';
import { toFormulaView } from '../reactor-formulas/formula-view';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toReactorView, type ReactorView } from './reactor-view';
import { openConfiguration } from './sealing/reactor-configuration';

export class ListReactorsQuery extends VaultQuery<Page<ReactorView>> {
  constructor(
    readonly caller: Caller,
    readonly query: ReactorListQuery,
  ) {
    super();
  }
}

export class ListReactorsHandler implements UseCaseHandler<ListReactorsQuery> {
  constructor(
    private readonly reactors: ReactorReadModel,
    private readonly formulas: FormulaReadModel,
    private readonly crypto: TokenCrypto,
  ) {}

  async execute({ caller, query }: ListReactorsQuery): Promise<Page<ReactorView>> {
    const tenantId = caller.principal.tenantId;
    const page = await this.reactors.list(tenantId, query);
    const formulaIds = [...new Set(page.items.map((reactor) => reactor.formula_id))];
    const formulas = new Map(await Promise.all(formulaIds.map(async (id) => [id, await this.formulas.get(tenantId, id)] as const)));
    const items = await Promise.all(
      page.items.map(async (reactor) => {
        const formula = formulas.get(reactor.formula_id) ?? null;
        // A reactor whose key a delete in flight has just shredded is left out, not a failed list.
        const configuration = await openConfiguration(this.crypto, reactor).catch((error: unknown) => {
          if (error instanceof DomainError && error.kind === 'not_found') return null;
          throw error;
        });
        return configuration === null ? null : toReactorView(reactor, formula && toFormulaView(formula), configuration);
      }),
    );
    return { total: page.total, items: items.filter((item): item is ReactorView => item !== null) };
  }
}
