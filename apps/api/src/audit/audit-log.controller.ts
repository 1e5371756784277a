// GET /logs: the tenant's audit log. The filters are read by the domain, which names a bad one.
import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ListAuditLogQuery } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller } from '../http/caller';
import { ApiPageResponse, paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';
import { AUDIT_PAGE_EXAMPLE, AuditEntrySchema, AuditLogParams } from './audit-log.dto';

@ApiTags('Audit log')
@Controller('logs')
export class AuditLogController {
  constructor(private readonly bus: VaultBus) {}

  /** Newest first; `entity_type`, `entity_id`, `start_date`, `end_date` (ISO 8601, inclusive), `page`, `size`. */
  @Get()
  @ApiOperation({
    operationId: 'listAuditLog',
    summary: "List your tenant's audit log, newest first",
    description:
      'Every write of a token, application, reactor, formula or the tenant, and every access to plaintext (reveal on GET, search and detokenize, token use in reactors, reactor invocations). ' +
      'Ordered by created_at descending, then by the order of the event log. With VAULT_AUDIT_RETENTION_DAYS set, access records older than that are dropped; entries of writes are kept.',
  })
  @ApiPageResponse(AuditEntrySchema, 'A page of entries', AUDIT_PAGE_EXAMPLE)
  @RequirePermission('log:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: AuditLogParams) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const { entity_type, entity_id, start_date, end_date } = params;
    const result = await this.bus.ask(new ListAuditLogQuery(caller, { entity_type, entity_id, start_date, end_date }, { page, size }));
    return paginated(result, page, size);
  }
}
