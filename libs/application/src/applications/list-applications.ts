// GET /applications: a page of the caller's tenant's applications.
import type { ApplicationReadModel, Page, PageRequest } from '../ports/read-models';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toApplicationView, type ApplicationView } from './application-view';

export class ListApplicationsQuery extends VaultQuery<Page<ApplicationView>> {
  constructor(
    readonly caller: Caller,
    readonly page: PageRequest,
  ) {
    super();
  }
}

export class ListApplicationsHandler implements UseCaseHandler<ListApplicationsQuery> {
  constructor(private readonly readModel: ApplicationReadModel) {}

  async execute({ caller, page }: ListApplicationsQuery): Promise<Page<ApplicationView>> {
    const result = await this.readModel.list(caller.principal.tenantId, page);
    return { total: result.total, items: result.items.map(toApplicationView) };
  }
}
