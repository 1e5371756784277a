import { Controller, Get, Query } from '@nestjs/common';
import { isApplicationType, PERMISSIONS, Permission, validationError } from '@vault/domain';
import { Authenticated } from '../http/access.decorators';

@Controller('permissions')
export class PermissionsController {
  @Get()
  @Authenticated()
  list(@Query('application_type') applicationType?: string): Permission[] {
    if (applicationType === undefined) return [...PERMISSIONS];
    if (!isApplicationType(applicationType)) {
      throw validationError({ application_type: ['application_type must be one of public, private, expiring, management'] });
    }
    return PERMISSIONS.filter((p) => p.application_types.includes(applicationType));
  }
}
