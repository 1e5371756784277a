// GET /applications/{id}: an application of the caller's tenant.
import { notFound } from '@vault/domain';
import type { ApplicationReadModel } from '../ports/read-models';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toApplicationView, type ApplicationView } from './application-view';

export class GetApplicationQuery extends VaultQuery<ApplicationView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetApplicationHandler implements UseCaseHandler<GetApplicationQuery> {
  constructor(private readonly readModel: ApplicationReadModel) {}

  async execute({ caller, id }: GetApplicationQuery): Promise<ApplicationView> {
    const doc = await this.readModel.get(caller.principal.tenantId, id);
    if (!doc) throw notFound('Application');
    return toApplicationView(doc);
  }
}
