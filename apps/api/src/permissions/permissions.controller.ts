// GET /permissions: the permission catalogue, for any valid key.
import { Controller, Get, Query } from '@nestjs/common';
import { ApplicationType, PERMISSIONS, Permission } from '@vault/domain';
import { Authenticated } from '../http/access.decorators';
import { vaultQueryPipe } from '../http/validation.pipe';
import { PermissionsQuery } from './permissions.dto';

@Controller('permissions')
export class PermissionsController {
  @Get()
  @Authenticated()
  list(@Query(vaultQueryPipe()) { application_type }: PermissionsQuery): Permission[] {
    if (application_type === undefined) return [...PERMISSIONS];
    return PERMISSIONS.filter((p) => p.application_types.includes(application_type as ApplicationType));
  }
}
