// The application body's shape; the business rules (permissions per type, expiry, rules) are the domain's.
// List maxima are checked on the body as parsed, before class-transformer builds a DTO per rule (MaxItems).
// Decorators register bottom-up and the pipe stops at a field's first failure: type checks sit closest to the property.
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, Min, ValidateIf, ValidateNested } from 'class-validator';
import type { ApplicationView, ApplicationWithKey } from '@vault/application';
import {
  ACCESS_TRANSFORMS,
  APPLICATION_TYPES,
  type AccessTransform,
  type ApplicationType,
  MAX_APPLICATION_NAME_LENGTH,
  MAX_APPLICATION_RULES_JSON_LENGTH,
  MAX_RULE_CONTAINER_LENGTH,
  MAX_RULE_DESCRIPTION_LENGTH,
} from '@vault/domain';
import { LengthInCharacters } from '../http/characters';
import { examplePage } from '../http/pagination';
import { MaxItems } from '../http/raw-body-checks';

/** Our bounds (the API description's limits): every permission of the catalogue once. */
export const MAX_APPLICATION_PERMISSIONS = 30;
export const MAX_APPLICATION_RULES = 100;

@ApiSchema({ name: 'AccessRule', description: 'What the application sees of the tokens in a container, per permission.' })
export class AccessRuleDto {
  @ApiPropertyOptional({ maxLength: MAX_RULE_DESCRIPTION_LENGTH })
  @IsOptional()
  @IsString()
  description?: string;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'Unique within the application; lower numbers are tried first' })
  @Min(1)
  @IsInt()
  priority!: number;

  @ApiProperty({
    maxLength: MAX_RULE_CONTAINER_LENGTH,
    description: 'A `/…/` path of a-z, 0-9, _ and - segments; the rule covers it and every container below it',
    examples: ['/pci/'],
  })
  @IsString()
  container!: string;

  @ApiProperty({ enum: ACCESS_TRANSFORMS, description: 'reveal: the data; mask: the token’s mask; redact: no data' })
  @IsIn(ACCESS_TRANSFORMS)
  transform!: string;

  @ApiProperty({ type: [String], maxItems: MAX_APPLICATION_PERMISSIONS, description: 'Token permissions only (`token:read`, `token:search`, …)' })
  @IsString({ each: true })
  @MaxItems(MAX_APPLICATION_PERMISSIONS)
  @IsArray()
  permissions!: string[];
}

const RULES_DESCRIPTION = `At most ${MAX_APPLICATION_RULES_JSON_LENGTH.toLocaleString('en-US')} characters of JSON together, as stored (containers lower-cased)`;

@ApiSchema({ name: 'ApplicationBody', description: 'An application’s settings, on create and on replace (PUT).' })
export class ApplicationBody {
  @ApiProperty({ minLength: 1, maxLength: MAX_APPLICATION_NAME_LENGTH, description: 'Counted in characters (Unicode code points)' })
  @LengthInCharacters(1, MAX_APPLICATION_NAME_LENGTH)
  @IsString()
  name!: string;

  @ApiProperty({ enum: APPLICATION_TYPES, description: 'Which permissions it may hold (GET /permissions); a management key manages the tenant' })
  @IsIn(APPLICATION_TYPES)
  type!: string;

  @ApiPropertyOptional({ type: [String], maxItems: MAX_APPLICATION_PERMISSIONS, description: 'Permissions of the catalogue its type allows' })
  @IsOptional()
  @IsString({ each: true })
  @MaxItems(MAX_APPLICATION_PERMISSIONS)
  @IsArray()
  permissions?: string[];

  @ApiPropertyOptional({ type: [AccessRuleDto], maxItems: MAX_APPLICATION_RULES, description: `${RULES_DESCRIPTION}. Without rules, every token is masked.` })
  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => AccessRuleDto)
  @MaxItems(MAX_APPLICATION_RULES, () => AccessRuleDto)
  @IsArray()
  rules?: AccessRuleDto[];

  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true, description: 'Required for, and only for, expiring applications' })
  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsISO8601({ strict: true })
  expires_at?: string | null;
}

/** An application as the API shows it; `implements` keeps every field of the view described here. */
@ApiSchema({ name: 'Application' })
export class ApplicationSchema implements ApplicationView {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  tenant_id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ enum: APPLICATION_TYPES })
  type!: ApplicationType;

  @ApiProperty({ type: [String] })
  permissions!: string[];

  @ApiProperty({ type: [AccessRuleDto] })
  rules!: Array<AccessRuleDto & { transform: AccessTransform }>;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true })
  expires_at!: string | null;

  @ApiProperty({ description: 'The creating application, or the operator (`cli`, `bootstrap`)' })
  created_by!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiPropertyOptional({ description: 'Present once modified' })
  modified_by?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once modified' })
  modified_at?: string;

  @ApiPropertyOptional({ description: 'The API key: only in the answers of create and regenerate, and never again', examples: ['key_prv_CUHAajJ4b3eO5xRTULyZEXmmf9Vrk8HPGalba5VdS6k'] })
  key?: string;
}

// Examples: the request bodies are sent as they stand by test/e2e/openapi.spec.ts.
export const APPLICATION_BODY_EXAMPLE = {
  name: 'Checkout service',
  type: 'private',
  permissions: ['token:create', 'token:read', 'token:search'],
  rules: [
    { description: 'Cards masked', priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:create', 'token:read', 'token:search'] },
    { description: 'Everything else redacted', priority: 2, container: '/', transform: 'redact', permissions: ['token:read', 'token:search'] },
  ],
};

export const APPLICATION_EXAMPLE = {
  id: '36eb6031-a27e-4338-b10b-e508d8700c42',
  tenant_id: 'b0075700-0000-4000-8000-000000000001',
  name: 'Checkout service',
  type: 'private',
  permissions: ['token:create', 'token:read', 'token:search'],
  rules: [
    { priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:create', 'token:read', 'token:search'], description: 'Cards masked' },
    { priority: 2, container: '/', transform: 'redact', permissions: ['token:read', 'token:search'], description: 'Everything else redacted' },
  ],
  expires_at: null,
  created_by: 'b0075700-0000-4000-8000-000000000002',
  created_at: '2026-11-28T10:40:32.534Z',
} satisfies ApplicationView;

const KEY = 'key_prv_CUHAajJ4b3eO5xRTULyZEXmmf9Vrk8HPGalba5VdS6k';
export const CREATED_APPLICATION_EXAMPLE = { ...APPLICATION_EXAMPLE, key: KEY } satisfies ApplicationWithKey;
export const UPDATED_APPLICATION_EXAMPLE = {
  ...APPLICATION_EXAMPLE,
  modified_by: APPLICATION_EXAMPLE.created_by,
  modified_at: '2026-11-28T11:02:10.118Z',
} satisfies ApplicationView;
export const REGENERATED_APPLICATION_EXAMPLE = { ...UPDATED_APPLICATION_EXAMPLE, key: 'key_prv_Qk8bosFsyfPQ_wS21EVUjmbzO7LmrfFju74UwEQliv8' } satisfies ApplicationWithKey;
export const APPLICATION_PAGE_EXAMPLE = examplePage<ApplicationView>(APPLICATION_EXAMPLE);
