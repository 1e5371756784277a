// GET /logs: the tenant's audit log (API.md "Audit log"). The filters are read by the domain, which names a bad one.
import { Controller, Get, Query } from '@nestjs/common';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ListAuditLogQuery } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller } from '../http/caller';
import { PageQuery, paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';

// Long enough for any valid value (a UUID, a date-time with nine fraction digits and an offset); a longer one is a 400.
const MAX_FILTER_LENGTH = 64;

export class AuditLogParams extends PageQuery {
  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `entity_type must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'entity_type must be a string' })
  entity_type?: string;

  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `entity_id must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'entity_id must be a string' })
  entity_id?: string;

  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `start_date must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'start_date must be a string' })
  start_date?: string;

  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `end_date must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'end_date must be a string' })
  end_date?: string;
}

@Controller('logs')
export class LogsController {
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
