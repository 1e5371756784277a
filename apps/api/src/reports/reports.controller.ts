// Reports on the caller's own tenant: counts kept by the read models, never a count of rows at request time.
import { Controller, Get } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { GetUsageReportQuery } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller } from '../http/caller';
import { TypeUsageSchema, USAGE_REPORT_EXAMPLE, UsageReportSchema } from './reports.dto';

@ApiTags('Tenants')
@ApiExtraModels(TypeUsageSchema)
@Controller('tenants/self/reports')
export class ReportsController {
  constructor(private readonly bus: VaultBus) {}

  @Get('usage')
  @ApiOperation({
    operationId: 'getUsageReport',
    summary: "Your tenant's token usage",
    description:
      'Live tokens by type, with the newest creation time of each, and the number of distinct tokens active in the current calendar month (UTC). ' +
      'Counts only: no token id, data or metadata. Kept up to date by the read models as the event log is applied, so it answers as fast at a million tokens as at ten.',
  })
  @ApiOkResponse({ description: 'The usage report', type: UsageReportSchema, example: USAGE_REPORT_EXAMPLE })
  @RequirePermission('report:read')
  usage(@CurrentCaller() caller: Caller) {
    return this.bus.ask(new GetUsageReportQuery(caller));
  }
}
