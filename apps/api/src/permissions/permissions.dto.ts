// The query of GET /permissions.
import { IsIn, IsOptional, IsString } from 'class-validator';
import { APPLICATION_TYPES } from '@vault/domain';

/** Through vaultQueryPipe, like every list's query: `application_type[]=…` or a repeated parameter is a 400 naming it. */
export class PermissionsQuery {
  @IsOptional()
  @IsIn(APPLICATION_TYPES, { message: `application_type must be one of ${APPLICATION_TYPES.join(', ')}` })
  @IsString({ message: 'application_type must be given once, as a plain value' })
  application_type?: string;
}
