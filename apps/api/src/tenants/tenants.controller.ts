// The caller's own tenant: read, rename, delete with everything in it.
import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { DeleteTenantCommand, GetOwnTenantQuery, RenameOwnTenantCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller } from '../http/caller';
import { NoBody } from '../http/no-body';
import { AnswersAfterTenantDeletion } from '../http/caller-liveness.interceptor';
import { TenantBody } from './tenants.dto';

@Controller('tenants')
export class TenantsController {
  constructor(private readonly bus: VaultBus) {}

  @Get('self')
  @RequirePermission('tenant:read')
  get(@CurrentCaller() caller: Caller) {
    return this.bus.ask(new GetOwnTenantQuery(caller));
  }

  @Put('self')
  @RequirePermission('tenant:update')
  rename(@CurrentCaller() caller: Caller, @Body() body: TenantBody) {
    return this.bus.execute(new RenameOwnTenantCommand(caller, body.name));
  }

  /** 204 once the tenant key is destroyed and the read models have dropped the tenant: every key of it is then a 401. */
  @Delete('self')
  @HttpCode(204)
  @RequirePermission('tenant:delete')
  @AnswersAfterTenantDeletion()
  async delete(@CurrentCaller() caller: Caller, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(DeleteTenantCommand.ownTenant(caller));
  }
}
