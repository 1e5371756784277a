// GET /permissions: the permission catalogue, for any valid key.
import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { APPLICATION_TYPES, ApplicationType, PERMISSIONS, Permission } from '@vault/domain';
import { Authenticated } from '../http/access.decorators';
import { ApiProblem } from '../http/problem';
import { vaultQueryPipe } from '../http/validation.pipe';
import { PERMISSIONS_EXAMPLE, PermissionSchema, PermissionsQuery } from './permissions.dto';

@ApiTags('Permissions')
@Controller('permissions')
export class PermissionsController {
  @Get()
  @ApiOperation({ operationId: 'listPermissions', summary: 'List the permission catalogue', description: 'Any valid key may read it.' })
  @ApiOkResponse({ description: 'The permissions, in catalogue order', type: [PermissionSchema], example: PERMISSIONS_EXAMPLE })
  @ApiProblem(400, '`application_type` is not a type, or is given twice.', 'One or more validation errors occurred.', {
    application_type: [`application_type must be one of ${APPLICATION_TYPES.join(', ')}`],
  })
  @Authenticated()
  list(@Query(vaultQueryPipe()) { application_type }: PermissionsQuery): Permission[] {
    if (application_type === undefined) return [...PERMISSIONS];
    return PERMISSIONS.filter((p) => p.application_types.includes(application_type as ApplicationType));
  }
}
