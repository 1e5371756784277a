// The application body's shape; the business rules (permissions per type, expiry, rules) are the domain's.
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Length,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

export class AccessRuleDto {
  @IsOptional()
  @IsString()
  description?: string;

  @IsInt()
  @Min(1)
  priority!: number;

  @IsString()
  container!: string;

  @IsIn(['mask', 'redact', 'reveal'])
  transform!: string;

  @IsArray()
  @IsString({ each: true })
  permissions!: string[];
}

export class ApplicationBody {
  @IsString()
  @Length(1, 200)
  name!: string;

  @IsIn(['public', 'private', 'expiring', 'management'])
  type!: string;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  permissions?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => AccessRuleDto)
  rules?: AccessRuleDto[];

  @IsOptional()
  @ValidateIf((_o, v) => v !== null)
  @IsISO8601({ strict: true })
  expires_at?: string | null;
}
