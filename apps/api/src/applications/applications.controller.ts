import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { AnswersAfterOwnRevocation } from '../http/caller-liveness.interceptor';
import { ApiIdParam, Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { ApiPageResponse, PageQuery, paginated } from '../http/pagination';
import { ApiProblem, LOST_RACE } from '../http/problem';
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
import {
  APPLICATION_BODY_EXAMPLE,
  APPLICATION_EXAMPLE,
  APPLICATION_PAGE_EXAMPLE,
  ApplicationBody,
  ApplicationSchema,
  CREATED_APPLICATION_EXAMPLE,
  REGENERATED_APPLICATION_EXAMPLE,
  UPDATED_APPLICATION_EXAMPLE,
} from './applications.dto';

/** Management permissions are granted, and their holders touched, only by those who hold them. */
const ESCALATION_DETAIL = 'Only holders of a management permission may grant it; the caller lacks application:delete, reactor:create.';
const grants = () =>
  ApiProblem(403, 'Or the body grants a management permission the caller does not hold; `errors` names each.', ESCALATION_DETAIL, {
  'permissions[1]': ['the caller does not hold "application:delete", so it cannot grant it'],
});
const touches = () =>
  ApiProblem(
    403,
    'Or the application holds management permissions the caller does not hold; `detail` names them.',
    'The caller cannot update an application holding management permissions it lacks: application:delete.',
  );
const notFound = () => ApiProblem(404, 'No such application in your tenant.', 'Application was not found.');
const body = () =>
  ApiJsonBody({
  type: ApplicationBody,
  examples: { checkout: { summary: 'A backend that creates cards and sees them masked', value: APPLICATION_BODY_EXAMPLE } },
  invalid: { detail: 'One or more validation errors occurred.', errors: { 'rules[0].transform': ['transform must be one of the following values: mask, redact, reveal'] } },
});

@ApiTags('Applications')
@Controller('applications')
export class ApplicationsController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @ApiOperation({ operationId: 'createApplication', summary: 'Create an application', description: 'The answer holds its API key, shown this once.' })
  @body()
  @ApiCreatedResponse({ description: 'Created, with its key', type: ApplicationSchema, example: CREATED_APPLICATION_EXAMPLE })
  @grants()
  @RequirePermission('application:create')
  create(@CurrentCaller() caller: Caller, @Body() body: ApplicationBody) {
    return this.bus.execute(new CreateApplicationCommand(caller, body));
  }

  @Get()
  @ApiOperation({ operationId: 'listApplications', summary: 'List applications, newest first' })
  @ApiPageResponse(ApplicationSchema, 'A page of applications, without keys', APPLICATION_PAGE_EXAMPLE)
  @RequirePermission('application:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) query: PageQuery) {
    const page = query.page ?? 1;
    const size = query.size ?? 20;
    const result = await this.bus.ask(new ListApplicationsQuery(caller, { page, size }));
    return paginated(result, page, size);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getApplication', summary: 'Get an application' })
  @ApiIdParam('application')
  @ApiOkResponse({ description: 'The application, without its key', type: ApplicationSchema, example: APPLICATION_EXAMPLE })
  @notFound()
  @RequirePermission('application:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetApplicationQuery(caller, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateApplication', summary: 'Replace an application’s settings', description: 'Its key stays the same.' })
  @ApiIdParam('application')
  @body()
  @ApiOkResponse({ description: 'The updated application, without its key', type: ApplicationSchema, example: UPDATED_APPLICATION_EXAMPLE })
  @notFound()
  @ApiProblem(409, 'Lost a race with a concurrent write to the application, five times over.', LOST_RACE)
  @grants()
  @touches()
  @RequirePermission('application:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ApplicationBody) {
    return this.bus.execute(new UpdateApplicationCommand(caller, id, body));
  }

  @Post(':id/regenerate')
  @AnswersAfterOwnRevocation()
  @HttpCode(200)
  @ApiOperation({ operationId: 'regenerateApplicationKey', summary: 'Issue a new key', description: 'The old key stops working at once, also when it is the caller’s own.' })
  @ApiIdParam('application')
  @ApiOkResponse({ description: 'The application with its new key', type: ApplicationSchema, example: REGENERATED_APPLICATION_EXAMPLE })
  @notFound()
  @touches()
  @RequirePermission('application:update')
  regenerate(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined) {
    return this.bus.execute(new RegenerateApplicationKeyCommand(caller, id));
  }

  @Delete(':id')
  @AnswersAfterOwnRevocation()
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteApplication', summary: 'Delete an application', description: 'Its key stops working at once, also when it is the caller’s own.' })
  @ApiIdParam('application')
  @ApiNoContentResponse({ description: 'Deleted' })
  @notFound()
  @touches()
  @RequirePermission('application:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteApplicationCommand(caller, id));
  }
}
