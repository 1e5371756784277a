// The usage report as the API shows it: counts only, never an id or data.
import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { TypeUsage, UsageCounts, UsageReport } from '@vault/application';
import { TOKEN_TYPES } from '@vault/domain';

@ApiSchema({ name: 'TypeUsage' })
export class TypeUsageSchema implements TypeUsage {
  @ApiProperty({ minimum: 1, description: 'Live tokens of the type: created and not deleted yet (an expired token counts until the expiry sweep deletes it)' })
  count!: number;

  @ApiProperty({ format: 'date-time', description: 'When the newest live token of the type was created' })
  last_created_at!: string;
}

@ApiSchema({ name: 'TokenReport' })
export class TokenReportSchema implements UsageCounts {
  @ApiProperty({
    type: 'object',
    description: `Live tokens by type (${TOKEN_TYPES.join(', ')}); a type without live tokens is left out`,
    additionalProperties: { $ref: '#/components/schemas/TypeUsage' },
  })
  metrics_by_type!: Record<string, TypeUsage>;

  @ApiProperty({
    minimum: 0,
    description:
      'Distinct tokens created, updated, revealed (GET with plaintext, detokenize) or used (reactors, proxies) in the current calendar month (UTC), ' +
      'deleted ones included. Tokens revealed only in search results are not counted: a search records how many tokens it revealed, not which.',
  })
  monthly_active_tokens!: number;
}

@ApiSchema({ name: 'UsageReport' })
export class UsageReportSchema implements UsageReport {
  @ApiProperty({ type: TokenReportSchema })
  token_report!: TokenReportSchema;
}

export const USAGE_REPORT_EXAMPLE = {
  token_report: {
    metrics_by_type: {
      card_number: { count: 1200, last_created_at: '2026-11-28T10:00:00.000Z' },
      social_security_number: { count: 35, last_created_at: '2026-11-20T08:30:00.000Z' },
    },
    monthly_active_tokens: 410,
  },
} satisfies UsageReport;
