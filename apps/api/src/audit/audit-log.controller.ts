// GET /logs: the tenant's audit log. The filters are read by the domain, which names a bad one.
import { Controller, Get, Query } from '@nestjs/common';
import { ListAuditLogQuery } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller } from '../http/caller';
import { paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';
import { AuditLogParams } from './audit-log.dto';

@Controller('logs')
export class AuditLogController {
  constructor(private readonly bus: VaultBus) {}

  /** Newest first; `entity_type`, `entity_id`, `start_date`, `end_date` (ISO 8601, inclusive), `page`, `size`. */
  @Get()
  @RequirePermission('log:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: AuditLogParams) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const { entity_type, entity_id, start_date, end_date } = params;
    const result = await this.bus.ask(new ListAuditLogQuery(caller, { entity_type, entity_id, start_date, end_date }, { page, size }));
    return paginated(result, page, size);
  }
}
