// Reactors: create, list, read, replace, merge-patch, delete, and invoke (POST /reactors/{id}/react).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import {
  CreateReactorCommand,
  DeleteReactorCommand,
  GetReactorQuery,
  ListReactorsQuery,
  PatchReactorCommand,
  ReactCommand,
  UpdateReactorCommand,
} from '@vault/application';
import { KEPT_SECRETS_NEED_READ_MESSAGE, TOKEN_NOT_FOUND_MESSAGE } from '@vault/domain';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { ApiIdParam, Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { ApiPageResponse, paginated } from '../http/pagination';
import { ApiProblem, LOST_RACE } from '../http/problem';
import { vaultQueryPipe } from '../http/validation.pipe';
import { FormulaListParams } from '../reactor-formulas/reactor-formulas.dto';
import { NoBody } from '../http/no-body';
import {
  CREATE_REACTOR_EXAMPLE,
  PATCH_REACTOR_EXAMPLE,
  PATCHED_REACTOR_EXAMPLE,
  REACT_ANSWER,
  REACT_BODY,
  REACT_DESCRIPTION,
  REACT_EXAMPLE,
  REACTED_EXAMPLE,
  REACTOR_EXAMPLE,
  REACTOR_PAGE_EXAMPLE,
  ReactorCreateBody,
  ReactorSchema,
  ReactorUpdateBody,
  UPDATE_REACTOR_EXAMPLE,
  UPDATED_REACTOR_EXAMPLE,
} from './reactors.dto';

/** Reactor bodies are validated by the domain against the formula they name (every rule, by path), so they pass as JSON. */
type ReactorBody = Record<string, unknown>;

const notFound = () => ApiProblem(404, 'No such reactor in your tenant.', 'Reactor was not found.');
const writeConflict = () =>
  ApiProblem(
    409,
    "Lost a race with another write; or the reactor's formula was deleted while this write ran (deleting a formula that has reactors is otherwise refused).",
    'The formula of this reactor no longer exists; the reactor cannot be updated.',
  );
const BAD_CONFIGURATION = { detail: 'One or more validation errors occurred.', errors: { 'configuration.reveal_domain': ['configuration.reveal_domain must be a boolean'] } };
const BUSY = 'Too many reactor invocations are waiting; try again later.';

@ApiTags('Reactors')
@Controller('reactors')
export class ReactorsController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @ApiOperation({ operationId: 'createReactor', summary: 'Create a reactor: a formula with its configuration' })
  @ApiJsonBody({
    type: ReactorCreateBody,
    examples: { maskEmail: { summary: 'A reactor of the official Mask Email formula', value: CREATE_REACTOR_EXAMPLE } },
    invalid: BAD_CONFIGURATION,
  })
  @ApiCreatedResponse({ description: 'Created', type: ReactorSchema, example: REACTOR_EXAMPLE })
  @ApiProblem(409, 'The formula was deleted while the reactor was being created, or a lost race.', LOST_RACE)
  @RequirePermission('reactor:create')
  create(@CurrentCaller() caller: Caller, @Body() body: ReactorBody) {
    return this.bus.execute(new CreateReactorCommand(caller, body));
  }

  @Get()
  @ApiOperation({
    operationId: 'listReactors',
    summary: 'List your reactors',
    description: 'Ordered by name, then id; `name` filters as for GET /reactor-formulas.',
  })
  @ApiPageResponse(ReactorSchema, 'A page of reactors', REACTOR_PAGE_EXAMPLE)
  @RequirePermission('reactor:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: FormulaListParams) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const name = params.name ?? null;
    return paginated(await this.bus.ask(new ListReactorsQuery(caller, { name, page, size })), page, size);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getReactor', summary: 'Get a reactor, its configuration opened' })
  @ApiIdParam('reactor')
  @ApiOkResponse({ description: 'The reactor', type: ReactorSchema, example: REACTOR_EXAMPLE })
  @notFound()
  @RequirePermission('reactor:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetReactorQuery(caller, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateReactor', summary: 'Replace a reactor’s name, configuration and application' })
  @ApiIdParam('reactor')
  @ApiJsonBody({
    type: ReactorUpdateBody,
    examples: { maskEverything: { summary: 'Another mask character, and the domain masked too', value: UPDATE_REACTOR_EXAMPLE } },
    invalid: BAD_CONFIGURATION,
  })
  @ApiOkResponse({ description: 'The updated reactor', type: ReactorSchema, example: UPDATED_REACTOR_EXAMPLE })
  @notFound()
  @writeConflict()
  @RequirePermission('reactor:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ReactorBody) {
    return this.bus.execute(new UpdateReactorCommand(caller, id, body));
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'patchReactor',
    summary: 'Merge-patch a reactor',
    description:
      'RFC 7396, merged into the reactor as a PUT body would restate it (`configuration` and `application` merge one level: null removes a setting), then checked as a PUT. ' +
      'Keeping stored settings needs reactor:read (else a 403 on `configuration`): a caller that may not see them may not keep them unseen.',
  })
  @ApiIdParam('reactor')
  @ApiJsonBody({
    schema: { type: 'object', description: 'Any fields of ReactorUpdateBody; null removes a setting of `configuration`' },
    mergePatch: true,
    examples: { maskCharacter: { summary: 'Only another mask character', value: PATCH_REACTOR_EXAMPLE } },
    invalid: BAD_CONFIGURATION,
  })
  @ApiOkResponse({ description: 'The updated reactor', type: ReactorSchema, example: PATCHED_REACTOR_EXAMPLE })
  @notFound()
  @writeConflict()
  @ApiProblem(403, 'Or the patch keeps stored settings and the caller lacks reactor:read.', KEPT_SECRETS_NEED_READ_MESSAGE, {
    configuration: [KEPT_SECRETS_NEED_READ_MESSAGE],
  })
  @RequirePermission('reactor:update')
  patch(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() patch: ReactorBody) {
    return this.bus.execute(new PatchReactorCommand(caller, id, patch));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteReactor', summary: 'Delete a reactor', description: 'The key of its configuration is destroyed with it.' })
  @ApiIdParam('reactor')
  @ApiNoContentResponse({ description: 'Deleted' })
  @notFound()
  @RequirePermission('reactor:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteReactorCommand(caller, id));
  }

  /** `{ args }` → `{ tokens, raw }`: the args' tokens are used (token:use), never shown to the caller. */
  @Post(':id/react')
  @HttpCode(200)
  @ApiOperation({ operationId: 'invokeReactor', summary: "Invoke a reactor: run its formula's code on args", description: REACT_DESCRIPTION })
  @ApiIdParam('reactor')
  @ApiJsonBody({
    schema: REACT_BODY,
    required: false,
    examples: { email: { summary: 'Mask the email address a token holds', value: REACT_EXAMPLE } },
    invalid: { detail: 'One or more validation errors occurred.', errors: { 'args.email': [TOKEN_NOT_FOUND_MESSAGE] } },
  })
  @ApiOkResponse({ description: 'The code ran', content: { 'application/json': { schema: REACT_ANSWER, example: REACTED_EXAMPLE } } })
  @ApiProblem(
    403,
    "Or no rule grants token:use on a token of args, or a filter applies to one the caller's token:read rule does not reveal; or the reactor's application (else the caller) has no token:create rule on the containers of a token its tokenize asks for (errors name each `tokenize.<path>`; no token is created).",
    'The access rule that applies to the token at args.email does not show its data.',
  )
  @notFound()
  @ApiProblem(409, 'A token id the code’s tokenize asks for is taken, or a lost race.', LOST_RACE)
  @ApiProblem(
    422,
    'The code threw, timed out, ran out of memory, did not load, or returned something that is not a plain object of JSON values, or a raw that is not an object (`errors.reactor`: the thrown message, at most 500 characters); ' +
      "its tokenize is not a valid tokenize body (`errors.reactor` and `errors['tokenize.<path>']`); or the reactor's application was deleted or has expired (`errors['reactor.application']`).",
    'The reactor failed; errors.reactor says why.',
    { reactor: ['args.email must be an email address such as jane.doe@example.com.'] },
  )
  @ApiProblem(503, 'Too many invocations are running and waiting; retry after `Retry-After` seconds.', BUSY, undefined, {
    'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } },
  })
  @RequirePermission('token:use')
  react(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ReactorBody) {
    return this.bus.execute(new ReactCommand(caller, id, body));
  }
}
