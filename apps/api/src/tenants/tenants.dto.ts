// The body of PUT /tenants/self, and the tenant as the API shows it.
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import type { TenantView } from '@vault/application';
import { MAX_TENANT_NAME_LENGTH } from '@vault/domain';
import { LengthInCharacters } from '../http/characters';

export class TenantBody {
  @ApiProperty({ minLength: 1, maxLength: MAX_TENANT_NAME_LENGTH, description: 'Counted in characters (Unicode code points)' })
  @LengthInCharacters(1, MAX_TENANT_NAME_LENGTH)
  @IsString()
  name!: string;
}

@ApiSchema({ name: 'Tenant' })
export class TenantSchema implements TenantView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ minLength: 1, maxLength: MAX_TENANT_NAME_LENGTH })
  name!: string;

  @ApiProperty({ description: 'An application id, or the operator (`cli`, `bootstrap`)' })
  created_by!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Present once renamed' })
  modified_by?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once renamed' })
  modified_at?: string;
}

// Examples: the request body is sent as it stands by test/e2e/openapi.spec.ts.
export const TENANT_EXAMPLE = {
  id: 'b0075700-0000-4000-8000-000000000001',
  name: 'Acme',
  created_by: 'cli',
  created_at: '2026-11-28T10:00:00.000Z',
} satisfies TenantView;
export const RENAME_TENANT_EXAMPLE = { name: 'Acme Europe' };
export const RENAMED_TENANT_EXAMPLE = {
  ...TENANT_EXAMPLE,
  ...RENAME_TENANT_EXAMPLE,
  modified_by: '0f6e1d0a-3c8b-4f7e-9a41-5b2d7c9e8f10',
  modified_at: '2026-11-28T11:00:00.000Z',
} satisfies TenantView;
