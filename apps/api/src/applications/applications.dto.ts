// The application body's shape; the business rules (permissions per type, expiry, rules) are the domain's.
// List maxima are checked on the body as parsed, before class-transformer builds a DTO per rule (MaxItems).
// Decorators register bottom-up and the pipe stops at a field's first failure: type checks sit closest to the property.
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, Min, ValidateIf, ValidateNested } from 'class-validator';
import { ACCESS_TRANSFORMS, APPLICATION_TYPES, MAX_APPLICATION_NAME_LENGTH } from '@vault/domain';
import { LengthInCharacters } from '../http/characters';
import { MaxItems } from '../http/raw-body-checks';

/** Our bounds, documented in the OpenAPI document (common.openapi.ts): every permission of the catalogue once. */
export const MAX_APPLICATION_PERMISSIONS = 30;
export const MAX_APPLICATION_RULES = 100;

export class AccessRuleDto {
  @IsOptional()
  @IsString()
  description?: string;

  @Min(1)
  @IsInt()
  priority!: number;

  @IsString()
  container!: string;

  @IsIn(ACCESS_TRANSFORMS)
  transform!: string;

  @IsString({ each: true })
  @MaxItems(MAX_APPLICATION_PERMISSIONS)
  @IsArray()
  permissions!: string[];
}

export class ApplicationBody {
  @LengthInCharacters(1, MAX_APPLICATION_NAME_LENGTH)
  @IsString()
  name!: string;

  @IsIn(APPLICATION_TYPES)
  type!: string;

  @IsOptional()
  @IsString({ each: true })
  @MaxItems(MAX_APPLICATION_PERMISSIONS)
  @IsArray()
  permissions?: string[];

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => AccessRuleDto)
  @MaxItems(MAX_APPLICATION_RULES, () => AccessRuleDto)
  @IsArray()
  rules?: AccessRuleDto[];

  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsISO8601({ strict: true })
  expires_at?: string | null;
}
