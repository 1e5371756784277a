// The query of GET /logs: strings of bounded length here; what they must hold is checked by the domain.
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery } from '../http/pagination';

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
