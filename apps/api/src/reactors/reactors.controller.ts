// Reactors: create, list, read, replace, merge-patch, delete, and invoke (POST /reactors/{id}/react).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import {
  CreateReactorCommand,
  DeleteReactorCommand,
  GetReactorQuery,
  ListReactorsQuery,
  PatchReactorCommand,
  ReactCommand,
  UpdateReactorCommand,
} from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';
import { FormulaListParams } from '../reactor-formulas/reactor-formulas.dto';
import { NoBody } from '../http/no-body';

/** Reactor bodies are validated by the domain against the formula they name (every rule, by path), so they pass as JSON. */
type ReactorBody = Record<string, unknown>;

@Controller('reactors')
export class ReactorsController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @RequirePermission('reactor:create')
  create(@CurrentCaller() caller: Caller, @Body() body: ReactorBody) {
    return this.bus.execute(new CreateReactorCommand(caller, body));
  }

  /** `name`, `page` and `size` as for GET /reactor-formulas. */
  @Get()
  @RequirePermission('reactor:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: FormulaListParams) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const name = params.name ?? null;
    return paginated(await this.bus.ask(new ListReactorsQuery(caller, { name, page, size })), page, size);
  }

  @Get(':id')
  @RequirePermission('reactor:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetReactorQuery(caller, id));
  }

  @Put(':id')
  @RequirePermission('reactor:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ReactorBody) {
    return this.bus.execute(new UpdateReactorCommand(caller, id, body));
  }

  @Patch(':id')
  @RequirePermission('reactor:update')
  patch(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() patch: ReactorBody) {
    return this.bus.execute(new PatchReactorCommand(caller, id, patch));
  }

  @Delete(':id')
  @HttpCode(204)
  @RequirePermission('reactor:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteReactorCommand(caller, id));
  }

  /** `{ args }` → `{ tokens, raw }`: the args' tokens are used (token:use), never shown to the caller. */
  @Post(':id/react')
  @HttpCode(200)
  @RequirePermission('token:use')
  react(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ReactorBody) {
    return this.bus.execute(new ReactCommand(caller, id, body));
  }
}
