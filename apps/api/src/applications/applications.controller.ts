import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { PageQuery, paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';
import {
  CreateApplicationCommand,
  DeleteApplicationCommand,
  GetApplicationQuery,
  ListApplicationsQuery,
  RegenerateApplicationKeyCommand,
  UpdateApplicationCommand,
} from './application.commands';
import { ApplicationBody } from './application.dto';

@Controller('applications')
export class ApplicationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @RequirePermission('application:create')
  create(@CurrentCaller() caller: Caller, @Body() body: ApplicationBody) {
    return this.commands.execute(new CreateApplicationCommand(caller, body));
  }

  @Get()
  @RequirePermission('application:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) query: PageQuery) {
    const page = query.page ?? 1;
    const size = query.size ?? 20;
    const result = await this.queries.execute(new ListApplicationsQuery(caller.principal.tenantId, { page, size }));
    return paginated(result, page, size);
  }

  @Get(':id')
  @RequirePermission('application:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.queries.execute(new GetApplicationQuery(caller.principal.tenantId, id));
  }

  @Put(':id')
  @RequirePermission('application:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ApplicationBody) {
    return this.commands.execute(new UpdateApplicationCommand(caller, id, body));
  }

  @Post(':id/regenerate')
  @HttpCode(200)
  @RequirePermission('application:update')
  regenerate(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.commands.execute(new RegenerateApplicationKeyCommand(caller, id));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('application:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string): Promise<void> {
    await this.commands.execute(new DeleteApplicationCommand(caller, id));
  }
}
