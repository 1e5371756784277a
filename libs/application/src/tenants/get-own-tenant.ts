// GET /tenants/self: the caller's own tenant.
import { notFound } from '@vault/domain';
import type { TenantReadModel } from '../ports/read-models';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { tenantView, type TenantView } from './tenant-view';

export class GetOwnTenantQuery extends VaultQuery<TenantView> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class GetOwnTenantHandler implements UseCaseHandler<GetOwnTenantQuery> {
  constructor(private readonly tenants: TenantReadModel) {}

  async execute({ caller }: GetOwnTenantQuery): Promise<TenantView> {
    const tenant = await this.tenants.get(caller.principal.tenantId);
    if (!tenant || tenant.deleted) throw notFound('Tenant');
    return tenantView(tenant);
  }
}
