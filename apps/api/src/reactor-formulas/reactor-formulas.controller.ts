// The five reactor-formula endpoints, plus the misspelled singular update path SPEC.md's sample uses (a deprecated alias).
import { Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { Response } from 'express';
import { RequirePermission } from '../http/access.decorators';
import { Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { PageQuery, paginated } from '../http/pagination';
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

/**
 * The type check sits closest to the property: decorators register bottom-up and the pipe stops at the first failure.
 * A NUL (`%00`) in `name` is a 400: SQLite's LIKE reads its pattern only up to the first NUL, so `%00Alpha` would
 * otherwise match every name, and `Al%00x` every name containing `al`.
 */
export class FormulaListParams extends PageQuery {
  @IsOptional()
  @Matches(/^[^\u0000]*$/, { message: 'name must not contain the NUL character (%00)' })
  @MaxLength(200, { message: 'name must be at most 200 characters long' })
  @IsString({ message: 'name must be a string' })
  name?: string;
}

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
    const name = params.name === undefined || params.name === '' ? null : params.name;
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
