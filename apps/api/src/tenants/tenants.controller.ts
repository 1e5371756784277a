// The caller's own tenant: read, rename, delete with everything in it.
import { Body, Controller, Delete, Get, HttpCode, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DeleteTenantCommand, GetOwnTenantQuery, RenameOwnTenantCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { Caller, CurrentCaller } from '../http/caller';
import { NoBody } from '../http/no-body';
import { AnswersAfterTenantDeletion } from '../http/caller-liveness.interceptor';
import { RENAME_TENANT_EXAMPLE, RENAMED_TENANT_EXAMPLE, TENANT_EXAMPLE, TenantBody, TenantSchema } from './tenants.dto';

@ApiTags('Tenants')
@Controller('tenants')
export class TenantsController {
  constructor(private readonly bus: VaultBus) {}

  @Get('self')
  @ApiOperation({ operationId: 'getOwnTenant', summary: 'Get your tenant' })
  @ApiOkResponse({ description: 'The tenant', type: TenantSchema, example: TENANT_EXAMPLE })
  @RequirePermission('tenant:read')
  get(@CurrentCaller() caller: Caller) {
    return this.bus.ask(new GetOwnTenantQuery(caller));
  }

  @Put('self')
  @ApiOperation({ operationId: 'renameOwnTenant', summary: 'Rename your tenant' })
  @ApiJsonBody({
    type: TenantBody,
    examples: { rename: { summary: 'A new name', value: RENAME_TENANT_EXAMPLE } },
    invalid: { detail: 'One or more validation errors occurred.', errors: { name: ['name must be 1 to 200 characters long'] } },
  })
  @ApiOkResponse({ description: 'The renamed tenant', type: TenantSchema, example: RENAMED_TENANT_EXAMPLE })
  @RequirePermission('tenant:update')
  rename(@CurrentCaller() caller: Caller, @Body() body: TenantBody) {
    return this.bus.execute(new RenameOwnTenantCommand(caller, body.name));
  }

  /** 204 once the tenant key is destroyed and the read models have dropped the tenant: every key of it is then a 401. */
  @Delete('self')
  @HttpCode(204)
  @AnswersAfterTenantDeletion()
  @ApiOperation({
    operationId: 'deleteOwnTenant',
    summary: 'Delete your tenant with everything in it',
    description:
      "Destroys the tenant's key, so every token's data (and every reactor configuration) is shredded at once, and removes the tenant's tokens, " +
      'applications, reactors, private formulas and audit entries from the read models. Answers 204 once that is durable; from then on every key ' +
      'of the tenant, this one included, answers 401, and so does a request of the tenant that was already in flight. Other tenants are untouched. ' +
      'The event log keeps the events, whose token data and configurations can no longer be decrypted.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @RequirePermission('tenant:delete')
  async delete(@CurrentCaller() caller: Caller, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(DeleteTenantCommand.ownTenant(caller));
  }
}
