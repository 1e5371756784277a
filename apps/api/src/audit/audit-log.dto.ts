// The query of GET /logs: strings of bounded length here; what they must hold is checked by the domain. And the entry.
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { AUDIT_ENTITY_TYPES, AUDIT_OPERATIONS, type AuditActorType, type AuditEntityType, type AuditEntry, type AuditOperation } from '@vault/domain';
import { examplePage, PageQuery } from '../http/pagination';

// Long enough for any valid value (a UUID, a date-time with nine fraction digits and an offset); a longer one is a 400.
const MAX_FILTER_LENGTH = 64;

const ISO_DATE =
  'ISO 8601: a date (`2024-05-01`, the whole UTC day) or a date-time with a time zone (`2024-05-01T10:00:00Z`, `2024-05-01T12:00:00+02:00`). Malformed: a 400 naming the parameter.';

export class AuditLogParams extends PageQuery {
  @ApiPropertyOptional({ enum: AUDIT_ENTITY_TYPES, description: 'Another value is a 400 naming entity_type' })
  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `entity_type must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'entity_type must be a string' })
  entity_type?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Not a UUID: a 400 naming entity_id' })
  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `entity_id must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'entity_id must be a string' })
  entity_id?: string;

  @ApiPropertyOptional({
    maxLength: MAX_FILTER_LENGTH,
    description: `Entries created at or after it (a date: from the start of that day). ${ISO_DATE} After end_date: a 400 naming start_date.`,
  })
  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `start_date must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'start_date must be a string' })
  start_date?: string;

  @ApiPropertyOptional({ maxLength: MAX_FILTER_LENGTH, description: `Entries created at or before it (a date: to the end of that day). ${ISO_DATE}` })
  @IsOptional()
  @MaxLength(MAX_FILTER_LENGTH, { message: `end_date must be at most ${MAX_FILTER_LENGTH} characters long` })
  @IsString({ message: 'end_date must be a string' })
  end_date?: string;
}

@ApiSchema({
  name: 'AuditEntry',
  description:
    'Who touched which entity, when. Never token data, keys, query values, args or configuration values: ids, a fixed text per kind of entry and, for a search, the number of tokens it returned in plaintext.',
})
export class AuditEntrySchema implements AuditEntry {
  @ApiProperty({ format: 'uuid' })
  tenant_id!: string;

  @ApiProperty({ description: "The acting application's id; for the operator, a fixed name (`cli`, `bootstrap`, `expiry-sweep`)" })
  actor_id!: string;

  @ApiProperty({ enum: ['application', 'operator', 'anonymous'] satisfies AuditActorType[] })
  actor_type!: AuditActorType;

  @ApiProperty({ enum: AUDIT_ENTITY_TYPES })
  entity_type!: AuditEntityType;

  @ApiProperty({ type: 'string', nullable: true, description: 'null for a search, which touches no one entity' })
  entity_id!: string | null;

  @ApiProperty({
    enum: AUDIT_OPERATIONS,
    description: 'Writes: create, update, delete, regenerate (an application key). Access records: reveal, search, use (a token used by a reactor), invoke (a reactor run)',
  })
  operation!: AuditOperation;

  @ApiProperty({ examples: ['Search returned 3 tokens in plaintext'] })
  message!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

const entry = (operation: AuditOperation, message: string, created_at: string): AuditEntry => ({
  tenant_id: 'b0075700-0000-4000-8000-000000000001',
  actor_id: '36eb6031-a27e-4338-b10b-e508d8700c42',
  actor_type: 'application',
  entity_type: 'token',
  entity_id: '5bb5c984-d3a2-4640-b59c-b8ed22cba6b0',
  operation,
  message,
  created_at,
});

export const AUDIT_PAGE_EXAMPLE = examplePage(
  entry('update', 'Token updated', '2026-11-28T10:41:02.716Z'),
  entry('create', 'Token created', '2026-11-28T10:40:32.574Z'),
);
