// The usage report (GET /tenants/self/reports/usage), as the read model keeps it: counts only, kept up to date by the
// usage projections (projections/usage.projection.ts), so that reading it costs the same at ten tokens as at millions.

export interface TypeUsage {
  /** Live tokens of the type: created and not deleted yet. */
  count: number;
  /** The creation time of the newest live token of the type (ISO 8601). */
  last_created_at: string;
}

export interface UsageCounts {
  /** Only types with at least one live token. */
  metrics_by_type: Record<string, TypeUsage>;
  /** Distinct tokens created, updated, revealed, detokenized or used in `month`. */
  monthly_active_tokens: number;
}

export interface UsageReportReadModel {
  /** The tenant's counts, with `month` (`YYYY-MM`, UTC) the month of monthly_active_tokens. Never another tenant's. */
  usage(tenantId: string, month: string): Promise<UsageCounts>;
}
