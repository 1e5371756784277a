// The five reactor-formula endpoints, plus the misspelled singular update path early clients call (a deprecated alias).
import { applyDecorators, Body, Controller, Delete, Get, Header, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { ApiIdParam, Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { ApiPageResponse, paginated } from '../http/pagination';
import { ApiProblem, LOST_RACE } from '../http/problem';
import { vaultQueryPipe } from '../http/validation.pipe';
import {
  CreateReactorFormulaCommand,
  DeleteReactorFormulaCommand,
  GetReactorFormulaQuery,
  ListReactorFormulasQuery,
  UpdateReactorFormulaCommand,
} from '@vault/application';
import { formulaChangeConflict } from '@vault/domain';
import { VaultBus } from '@vault/nest';
import { NoBody } from '../http/no-body';
import {
  FORMULA_BODY_EXAMPLE,
  FORMULA_EXAMPLE,
  FORMULA_PAGE_EXAMPLE,
  FormulaListParams,
  ReactorFormulaBody,
  ReactorFormulaSchema,
  UPDATED_FORMULA_EXAMPLE,
} from './reactor-formulas.dto';

/** The formula body is validated by the domain (every rule, with indexed field paths), so it passes through as JSON. */
type FormulaBody = Record<string, unknown>;

/** The domain's 409s for a formula change that would break a reactor, as examples. */
const BROKEN_REACTOR = [{ id: '3890bf8e-e35b-4b77-a4d3-36ed7c5b35db', name: 'Enrich checkout cards' }];
const BREAKING_CHANGE = formulaChangeConflict([], BROKEN_REACTOR);
const HAS_REACTORS = formulaChangeConflict('deleted', BROKEN_REACTOR);

const notFound = () => ApiProblem(404, 'No such formula: not official, and not one of your tenant’s.', 'Reactor formula was not found.');

/** A formula write: its body, the code check's 422 and 503, and the formula's own 403. */
const ApiFormulaWrite = () =>
  applyDecorators(
    ApiJsonBody({
      type: ReactorFormulaBody,
      examples: { cardEnricher: { summary: 'A private formula with a setting, a parameter and an icon', value: FORMULA_BODY_EXAMPLE } },
      invalid: { detail: 'One or more validation errors occurred.', errors: { 'request_parameters[0].type': ['type must be one of string, boolean, number'] } },
    }),
    ApiProblem(403, 'Or the body is an official formula: tenant applications write private ones only.', 'Official reactor formulas are managed by the operator; an application cannot create one.'),
    ApiProblem(
      422,
      'The code does not compile as Node.js 16 JavaScript (a hashbang first line is fine), or does not export a function it can call: a class or a generator function is refused too.',
      'The formula code does not compile or does not export a function.',
      { code: ['SyntaxError: Unexpected token (line 1, column 30)'] },
    ),
    ApiProblem(
      503,
      "Past the tenant's share of the formula code check queue (32 checks waiting, by default); retry after `Retry-After` seconds.",
      "Too many of this tenant's formula code checks are waiting; try again later.",
      undefined,
      { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } },
    ),
  );

const update = (operationId: string, summary: string, deprecated = false) =>
  applyDecorators(
    ApiOperation({ operationId, summary, ...(deprecated ? { deprecated, description: 'The same as PUT /reactor-formulas/{id}, under the path early clients call.' } : {}) }),
    ApiIdParam('formula'),
    ApiFormulaWrite(),
    ApiOkResponse({
      description: 'The updated formula, with modified_by and modified_at',
      type: ReactorFormulaSchema,
      example: UPDATED_FORMULA_EXAMPLE,
      ...(deprecated
        ? {
            headers: {
              Deprecation: { description: 'This path is deprecated', schema: { type: 'string', enum: ['true'] } },
              Link: { description: 'The path to use instead', schema: { type: 'string', examples: ['</reactor-formulas/1cf88798-0076-461b-b537-1a7f8afe2a70>; rel="successor-version"'] } },
            },
          }
        : {}),
    }),
    notFound(),
    ApiProblem(
      409,
      'A change of settings that reactors built on the formula would no longer fit (`errors.reactors` names them; change it in a new formula), or a lost race with another write.',
      BREAKING_CHANGE.message,
      BREAKING_CHANGE.errors,
    ),
  );

@ApiTags('Reactor formulas')
@Controller()
export class ReactorFormulasController {
  constructor(private readonly bus: VaultBus) {}

  @Post('reactor-formulas')
  @ApiOperation({ operationId: 'createReactorFormula', summary: 'Create a reactor formula', description: 'The code is compiled in a sandbox first; it does not run.' })
  @ApiFormulaWrite()
  @ApiCreatedResponse({ description: 'Created', type: ReactorFormulaSchema, example: FORMULA_EXAMPLE })
  @ApiProblem(409, 'The id is taken (a create with an id of its own), or a lost race.', LOST_RACE)
  @RequirePermission('reactor:create')
  create(@CurrentCaller() caller: Caller, @Body() body: FormulaBody) {
    return this.bus.execute(new CreateReactorFormulaCommand(caller, body));
  }

  @Get('reactor-formulas')
  @ApiOperation({ operationId: 'listReactorFormulas', summary: 'List the official formulas and your private ones', description: 'Ordered by name, then id.' })
  @ApiPageResponse(ReactorFormulaSchema, 'A page of formulas', FORMULA_PAGE_EXAMPLE)
  @RequirePermission('reactor:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: FormulaListParams) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const name = params.name ?? null;
    const result = await this.bus.ask(new ListReactorFormulasQuery(caller, { name, page, size }));
    return paginated(result, page, size);
  }

  @Get('reactor-formulas/:id')
  @ApiOperation({ operationId: 'getReactorFormula', summary: 'Get a reactor formula' })
  @ApiIdParam('formula')
  @ApiOkResponse({ description: 'The formula', type: ReactorFormulaSchema, example: FORMULA_EXAMPLE })
  @notFound()
  @RequirePermission('reactor:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetReactorFormulaQuery(caller, id));
  }

  @Put('reactor-formulas/:id')
  @update('updateReactorFormula', 'Replace a reactor formula')
  @RequirePermission('reactor:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: FormulaBody) {
    return this.bus.execute(new UpdateReactorFormulaCommand(caller, id, body));
  }

  @Put('reator-formula/:id')
  @Header('Deprecation', 'true')
  @update('updateReactorFormulaByDeprecatedPath', 'Replace a reactor formula (deprecated path)', true)
  @RequirePermission('reactor:update')
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
  @ApiOperation({ operationId: 'deleteReactorFormula', summary: 'Delete a reactor formula' })
  @ApiIdParam('formula')
  @ApiNoContentResponse({ description: 'Deleted' })
  @notFound()
  @ApiProblem(
    409,
    'The formula has reactors (`errors.reactors` names them; delete them first), or a lost race with another write.',
    HAS_REACTORS.message,
    HAS_REACTORS.errors,
  )
  @ApiProblem(403, 'Or the formula is official: the operator manages those.', 'Official reactor formulas are managed by the operator; an application cannot delete one.')
  @RequirePermission('reactor:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteReactorFormulaCommand(caller, id));
  }
}
