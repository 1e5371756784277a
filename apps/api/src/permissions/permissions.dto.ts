// The query and the answer of GET /permissions.
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { APPLICATION_TYPES, type ApplicationType, type Permission, PERMISSIONS } from '@vault/domain';

/** Through vaultQueryPipe, like every list's query: `application_type[]=…` or a repeated parameter is a 400 naming it. */
export class PermissionsQuery {
  @ApiPropertyOptional({ enum: APPLICATION_TYPES, description: 'Only the permissions an application of this type may hold' })
  @IsOptional()
  @IsIn(APPLICATION_TYPES, { message: `application_type must be one of ${APPLICATION_TYPES.join(', ')}` })
  @IsString({ message: 'application_type must be given once, as a plain value' })
  application_type?: string;
}

@ApiSchema({ name: 'Permission' })
export class PermissionSchema implements Permission {
  @ApiProperty({ examples: ['token:search'] })
  type!: string;

  @ApiProperty({ examples: ['Search tokens'] })
  description!: string;

  @ApiProperty({ enum: APPLICATION_TYPES, isArray: true, description: 'The application types that may hold it' })
  application_types!: ApplicationType[];
}

/** The catalogue's first rows, as the answer lists them. */
export const PERMISSIONS_EXAMPLE: Permission[] = PERMISSIONS.slice(0, 3);
