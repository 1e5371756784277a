// The five reactor-formula endpoints, plus the misspelled singular update path early clients call (a deprecated alias).
import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { paginated } from '../http/pagination';
import { vaultQueryPipe } from '../http/validation.pipe';
import {
  CreateReactorFormulaCommand,
  DeleteReactorFormulaCommand,
  GetReactorFormulaQuery,
  ListReactorFormulasQuery,
  UpdateReactorFormulaCommand,
} from '@vault/application';
import { VaultBus } from '@vault/nest';
import { NoBody } from '../http/no-body';
import { FormulaListParams } from './reactor-formulas.dto';

/** The formula body is validated by the domain (every rule, with indexed field paths), so it passes through as JSON. */
type FormulaBody = Record<string, unknown>;

@Controller()
export class ReactorFormulasController {
  constructor(private readonly bus: VaultBus) {}

  @Post('reactor-formulas')
  @RequirePermission('reactor:create')
  create(@CurrentCaller() caller: Caller, @Body() body: FormulaBody) {
    return this.bus.execute(new CreateReactorFormulaCommand(caller, body));
  }

  @Get('reactor-formulas')
  @RequirePermission('reactor:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: FormulaListParams) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const name = params.name ?? null;
    const result = await this.bus.ask(new ListReactorFormulasQuery(caller, { name, page, size }));
    return paginated(result, page, size);
  }

  @Get('reactor-formulas/:id')
  @RequirePermission('reactor:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetReactorFormulaQuery(caller, id));
  }

  @Put('reactor-formulas/:id')
  @RequirePermission('reactor:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: FormulaBody) {
    return this.bus.execute(new UpdateReactorFormulaCommand(caller, id, body));
  }

  @Put('reator-formula/:id')
  @RequirePermission('reactor:update')
  @Header('Deprecation', 'true')
  updateByDeprecatedPath(
    @CurrentCaller() caller: Caller,
    @Param('id', UuidPipe) id: string,
    @Body() body: FormulaBody,
    @Res({ passthrough: true }) res: Response,
  ) {
    res.setHeader('Link', `</reactor-formulas/${id}>; rel="successor-version"`);
    return this.bus.execute(new UpdateReactorFormulaCommand(caller, id, body));
  }

  @Delete('reactor-formulas/:id')
  @HttpCode(204)
  @RequirePermission('reactor:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteReactorFormulaCommand(caller, id));
  }
}
