import { Controller, Get, Query } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { APPLICATION_TYPES, ApplicationType, PERMISSIONS, Permission } from '@vault/domain';
import { Authenticated } from '../http/access.decorators';
import { vaultQueryPipe } from '../http/validation.pipe';

/** Through vaultQueryPipe, like every list's query: `application_type[]=…` or a repeated parameter is a 400 naming it. */
export class PermissionsQuery {
  @IsOptional()
  @IsIn(APPLICATION_TYPES, { message: `application_type must be one of ${APPLICATION_TYPES.join(', ')}` })
  @IsString({ message: 'application_type must be given once, as a plain value' })
  application_type?: string;
}

@Controller('permissions')
export class PermissionsController {
  @Get()
  @Authenticated()
  list(@Query(vaultQueryPipe()) { application_type }: PermissionsQuery): Permission[] {
    if (application_type === undefined) return [...PERMISSIONS];
    return PERMISSIONS.filter((p) => p.application_types.includes(application_type as ApplicationType));
  }
}
