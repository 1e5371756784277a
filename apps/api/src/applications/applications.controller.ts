import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { RequirePermission } from '../http/access.decorators';
import { AnswersAfterOwnRevocation } from '../http/caller-liveness.interceptor';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { PageQuery, paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';
import {
  CreateApplicationCommand,
  DeleteApplicationCommand,
  GetApplicationQuery,
  ListApplicationsQuery,
  RegenerateApplicationKeyCommand,
  UpdateApplicationCommand,
} from '@vault/application';
import { VaultBus } from '@vault/nest';
import { ApplicationBody } from './applications.dto';

@Controller('applications')
export class ApplicationsController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @RequirePermission('application:create')
  create(@CurrentCaller() caller: Caller, @Body() body: ApplicationBody) {
    return this.bus.execute(new CreateApplicationCommand(caller, body));
  }

  @Get()
  @RequirePermission('application:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) query: PageQuery) {
    const page = query.page ?? 1;
    const size = query.size ?? 20;
    const result = await this.bus.ask(new ListApplicationsQuery(caller, { page, size }));
    return paginated(result, page, size);
  }

  @Get(':id')
  @RequirePermission('application:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetApplicationQuery(caller, id));
  }

  @Put(':id')
  @RequirePermission('application:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ApplicationBody) {
    return this.bus.execute(new UpdateApplicationCommand(caller, id, body));
  }

  @Post(':id/regenerate')
  @AnswersAfterOwnRevocation()
  @HttpCode(200)
  @RequirePermission('application:update')
  regenerate(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined) {
    return this.bus.execute(new RegenerateApplicationKeyCommand(caller, id));
  }

  @Delete(':id')
  @AnswersAfterOwnRevocation()
  @HttpCode(204)
  @RequirePermission('application:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteApplicationCommand(caller, id));
  }
}
