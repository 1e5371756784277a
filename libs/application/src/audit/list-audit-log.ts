// GET /logs: the caller's tenant's audit entries, newest first, filtered by entity and time.
import { readAuditLogFilter, type AuditEntry, type AuditLogParams } from '@vault/domain';
import type { AuditReadModel, Page, PageRequest } from '../ports/read-models';
import { Caller, UseCaseHandler, VaultQuery } from '../shared/use-case';

export class ListAuditLogQuery extends VaultQuery<Page<AuditEntry>> {
  constructor(
    readonly caller: Caller,
    /** The filters as the query string gave them: a bad one is a 400 naming it. */
    readonly params: AuditLogParams,
    readonly page: PageRequest,
  ) {
    super();
  }
}

export class ListAuditLogHandler implements UseCaseHandler<ListAuditLogQuery> {
  constructor(private readonly audit: AuditReadModel) {}

  async execute({ caller, params, page }: ListAuditLogQuery): Promise<Page<AuditEntry>> {
    const filter = readAuditLogFilter(params);
    return this.audit.list(caller.principal.tenantId, { ...filter, ...page });
  }
}
