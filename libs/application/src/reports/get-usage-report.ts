// GET /tenants/self/reports/usage: the caller's tenant's live tokens by type and its monthly active tokens, counts only.
import type { UsageCounts, UsageReportReadModel } from '../ports/usage-report-read-model';
import { usageMonthOf } from '../projections/usage.projection';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';

export interface UsageReport {
  token_report: UsageCounts;
}

export class GetUsageReportQuery extends VaultQuery<UsageReport> {
  constructor(readonly caller: Caller) {
    super();
  }
}

export class GetUsageReportHandler implements UseCaseHandler<GetUsageReportQuery> {
  constructor(private readonly usage: UsageReportReadModel) {}

  /** The month is the request's calendar month (UTC): on its first day, the count starts again from 0. */
  async execute({ caller }: GetUsageReportQuery): Promise<UsageReport> {
    const counts = await this.usage.usage(caller.principal.tenantId, usageMonthOf(caller.now));
    return { token_report: { metrics_by_type: counts.metrics_by_type, monthly_active_tokens: counts.monthly_active_tokens } };
  }
}
