// Proxies: create, list, read, replace, merge-patch, delete. Invoking one is ANY /proxy (proxy-invocation.controller.ts).
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { CreateProxyCommand, DeleteProxyCommand, GetProxyQuery, ListProxiesQuery, MAX_LISTED_IDS, PatchProxyCommand, UpdateProxyCommand } from '@vault/application';
import { DESTINATION_NEEDS_READ_MESSAGE, isUuid, KEPT_PROXY_SECRETS_NEED_READ_MESSAGE, validationError } from '@vault/domain';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { ApiIdParam, Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { ApiPageResponse, examplePage, paginated } from '../http/pagination';
import { ApiProblem, LOST_RACE } from '../http/problem';
import { vaultQueryPipe } from '../http/validation.pipe';
import { FormulaListParams } from '../reactor-formulas/reactor-formulas.dto';
import { CREATE_PROXY_EXAMPLE, PATCH_PROXY_EXAMPLE, PROXY_EXAMPLE, ProxyBody, ProxySchema, UPDATE_PROXY_EXAMPLE } from './proxies.dto';

/** Proxy bodies are validated by the domain (every rule, by path), so they pass as JSON. */
type ProxyJson = Record<string, unknown>;

const notFound = () => ApiProblem(404, 'No such proxy in your tenant.', 'Proxy was not found.');
const BAD_DESTINATION = {
  detail: 'One or more validation errors occurred.',
  errors: { destination_url: ['destination_url must be on a host listed in VAULT_PROXY_ALLOWED_HOSTS.'] },
};
const SECRETS_NEED_READ = () =>
  ApiProblem(
    403,
    'The change moves the destination (`destination_url`), or changes transforms, require_auth or part of the configuration while keeping stored settings (`configuration`), and the caller lacks proxy:read.',
    DESTINATION_NEEDS_READ_MESSAGE,
    { destination_url: [DESTINATION_NEEDS_READ_MESSAGE] },
  );

@ApiTags('Proxies')
@Controller('proxies')
export class ProxiesController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @ApiOperation({
    operationId: 'createProxy',
    summary: 'Create a proxy',
    description:
      'Its key is generated. Without proxy:read, the answer holds no key, destination, transforms or configuration (read them with GET as a proxy:read holder).',
  })
  @ApiJsonBody({ type: ProxyBody, examples: { charge: { summary: 'Charge cards at a payment provider', value: CREATE_PROXY_EXAMPLE } }, invalid: BAD_DESTINATION })
  @ApiCreatedResponse({ description: 'Created', type: ProxySchema, example: PROXY_EXAMPLE })
  @ApiProblem(422, 'The code of a code transform does not load or export a function.', 'One or more validation errors occurred.')
  @RequirePermission('proxy:create')
  create(@CurrentCaller() caller: Caller, @Body() body: ProxyJson) {
    return this.bus.execute(new CreateProxyCommand(caller, body));
  }

  @Get()
  @ApiOperation({ operationId: 'listProxies', summary: 'List your proxies', description: 'Ordered by name, then id; `name` filters as for GET /reactor-formulas.' })
  @ApiQuery({
    name: 'id',
    required: false,
    description: `Only these proxies (repeat the parameter for several, at most ${MAX_LISTED_IDS}), as the hosted vaults' SDKs ask`,
    schema: { type: 'array', items: { type: 'string', format: 'uuid' }, maxItems: MAX_LISTED_IDS },
    style: 'form',
    explode: true,
  })
  @ApiPageResponse(ProxySchema, 'A page of proxies', examplePage(PROXY_EXAMPLE))
  @RequirePermission('proxy:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: FormulaListParams, @Req() req: Request) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    const ids = listedIds(req.query.id);
    return paginated(await this.bus.ask(new ListProxiesQuery(caller, { name: params.name ?? null, page, size }, ids)), page, size);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getProxy', summary: 'Get a proxy, its key and configuration opened' })
  @ApiIdParam('proxy')
  @ApiOkResponse({ description: 'The proxy', type: ProxySchema, example: PROXY_EXAMPLE })
  @notFound()
  @RequirePermission('proxy:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetProxyQuery(caller, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateProxy', summary: 'Replace a proxy (same body as a create); its key stays' })
  @ApiIdParam('proxy')
  @ApiJsonBody({ type: ProxyBody, examples: { rename: { summary: 'The whole proxy, renamed', value: UPDATE_PROXY_EXAMPLE } }, invalid: BAD_DESTINATION })
  @ApiOkResponse({ description: 'The updated proxy', type: ProxySchema, example: { ...PROXY_EXAMPLE, name: UPDATE_PROXY_EXAMPLE.name } })
  @notFound()
  @SECRETS_NEED_READ()
  @ApiProblem(409, 'Lost a race with another write.', LOST_RACE)
  @RequirePermission('proxy:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: ProxyJson) {
    return this.bus.execute(new UpdateProxyCommand(caller, id, body));
  }

  @Patch(':id')
  @ApiOperation({
    operationId: 'patchProxy',
    summary: 'Merge-patch a proxy',
    description: `RFC 7396, merged into the proxy as a PUT body would restate it (\`configuration\` and \`application\` merge one level), then checked as a PUT. ${KEPT_PROXY_SECRETS_NEED_READ_MESSAGE}`,
  })
  @ApiIdParam('proxy')
  @ApiJsonBody({
    schema: { type: 'object', description: 'Any fields of ProxyBody; null removes a setting of `configuration`' },
    mergePatch: true,
    examples: { rename: { summary: 'Only a new name', value: PATCH_PROXY_EXAMPLE } },
    invalid: BAD_DESTINATION,
  })
  @ApiOkResponse({ description: 'The updated proxy', type: ProxySchema, example: { ...PROXY_EXAMPLE, name: PATCH_PROXY_EXAMPLE.name } })
  @notFound()
  @SECRETS_NEED_READ()
  @ApiProblem(409, 'Lost a race with another write.', LOST_RACE)
  @RequirePermission('proxy:update')
  patch(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() patch: ProxyJson) {
    return this.bus.execute(new PatchProxyCommand(caller, id, patch));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteProxy', summary: 'Delete a proxy', description: 'The key that sealed its key, destination, configuration and transforms is destroyed with it.' })
  @ApiIdParam('proxy')
  @ApiNoContentResponse({ description: 'Deleted' })
  @notFound()
  @RequirePermission('proxy:delete')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteProxyCommand(caller, id));
  }
}

/** `?id=a&id=b`: the proxies to list, lower-case; null without the parameter. An empty or non-UUID id is a 400 naming `id`. */
const listedIds = (value: unknown): string[] | null => {
  if (value === undefined) return null;
  const ids = Array.isArray(value) ? value : [value];
  if (ids.length > MAX_LISTED_IDS) throw validationError({ id: [`id may be given at most ${MAX_LISTED_IDS} times.`] });
  if (!ids.every((id): id is string => typeof id === 'string' && isUuid(id))) throw validationError({ id: ['id must be a proxy id (a UUID).'] });
  return ids.map((id) => id.toLowerCase());
};
