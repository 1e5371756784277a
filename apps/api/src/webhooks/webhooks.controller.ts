// Webhooks: create, list, read, replace, delete, and each webhook's deliveries. Delivery itself is an event-stream
// consumer (the webhook dispatcher), never a request's work.
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateWebhookCommand, DeleteWebhookCommand, GetWebhookQuery, ListDeliveriesQuery, ListWebhooksQuery, UpdateWebhookCommand } from '@vault/application';
import { VaultBus } from '@vault/nest';
import { RequirePermission } from '../http/access.decorators';
import { ApiJsonBody } from '../http/body-parsing';
import { ApiIdParam, Caller, CurrentCaller, UuidPipe } from '../http/caller';
import { NoBody } from '../http/no-body';
import { ApiPageResponse, examplePage, PageQuery, paginated } from '../http/pagination';
import { ApiProblem, LOST_RACE } from '../http/problem';
import { vaultQueryPipe } from '../http/validation.pipe';
import { CREATE_WEBHOOK_EXAMPLE, DELIVERY_EXAMPLE, DeliverySchema, WEBHOOK_EXAMPLE, WebhookBody, WebhookSchema } from './webhooks.dto';

/** Webhook bodies are validated by the domain (every rule, by field), so they pass as JSON. */
type WebhookJson = Record<string, unknown>;

const notFound = () => ApiProblem(404, 'No such webhook in your tenant.', 'Webhook was not found.');
const BAD_URL = {
  detail: 'One or more validation errors occurred.',
  errors: { url: ['url must be on a host listed in VAULT_WEBHOOK_ALLOWED_HOSTS.'] },
};

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly bus: VaultBus) {}

  @Post()
  @ApiOperation({
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    description:
      'The answer holds the signing secret, once: every delivery carries `SVC-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(signing_secret, t + "." + body)>`. Events appended after the create are delivered.',
  })
  @ApiJsonBody({ type: WebhookBody, examples: { tokens: { summary: 'Token creates and deletes', value: CREATE_WEBHOOK_EXAMPLE } }, invalid: BAD_URL })
  @ApiCreatedResponse({ description: 'Created', type: WebhookSchema, example: { ...WEBHOOK_EXAMPLE, signing_secret: 'whsec_q8V1nS0x5m2X9cJ4rT7aL3eK6pW0yB2dF5hG8jM1nQ4' } })
  @ApiProblem(422, 'The tenant has 25 webhooks already.', 'A tenant has at most 25 webhooks; delete one first.')
  @RequirePermission('tenant:update')
  create(@CurrentCaller() caller: Caller, @Body() body: WebhookJson) {
    return this.bus.execute(new CreateWebhookCommand(caller, body));
  }

  @Get()
  @ApiOperation({ operationId: 'listWebhooks', summary: 'List your webhooks', description: 'Newest first, then by id. Signing secrets are never listed.' })
  @ApiPageResponse(WebhookSchema, 'A page of webhooks', examplePage(WEBHOOK_EXAMPLE))
  @RequirePermission('tenant:read')
  async list(@CurrentCaller() caller: Caller, @Query(vaultQueryPipe()) params: PageQuery) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    return paginated(await this.bus.ask(new ListWebhooksQuery(caller, { page, size })), page, size);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getWebhook', summary: 'Get a webhook' })
  @ApiIdParam('webhook')
  @ApiOkResponse({ description: 'The webhook', type: WebhookSchema, example: WEBHOOK_EXAMPLE })
  @notFound()
  @RequirePermission('tenant:read')
  get(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string) {
    return this.bus.ask(new GetWebhookQuery(caller, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateWebhook', summary: 'Replace a webhook (same body as a create); its signing secret stays' })
  @ApiIdParam('webhook')
  @ApiJsonBody({ type: WebhookBody, examples: { disable: { summary: 'Paused', value: { ...CREATE_WEBHOOK_EXAMPLE, enabled: false } } }, invalid: BAD_URL })
  @ApiOkResponse({ description: 'The updated webhook', type: WebhookSchema, example: { ...WEBHOOK_EXAMPLE, enabled: false } })
  @notFound()
  @ApiProblem(409, 'Lost a race with another write.', LOST_RACE)
  @RequirePermission('tenant:update')
  update(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Body() body: WebhookJson) {
    return this.bus.execute(new UpdateWebhookCommand(caller, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteWebhook', summary: 'Delete a webhook', description: 'Its deliveries stop at once, and the key that sealed its signing secret is destroyed.' })
  @ApiIdParam('webhook')
  @ApiNoContentResponse({ description: 'Deleted' })
  @notFound()
  @RequirePermission('tenant:update')
  async delete(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @NoBody() _body: undefined): Promise<void> {
    await this.bus.execute(new DeleteWebhookCommand(caller, id));
  }

  @Get(':id/deliveries')
  @ApiOperation({
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook's deliveries",
    description: 'The latest event first, each as its last attempt left it: `pending` (retried later), `delivered` (a 2xx came) or `failed` (no 2xx within the retry window).',
  })
  @ApiIdParam('webhook')
  @ApiPageResponse(DeliverySchema, 'A page of deliveries', examplePage(DELIVERY_EXAMPLE))
  @notFound()
  @RequirePermission('tenant:read')
  async deliveries(@CurrentCaller() caller: Caller, @Param('id', UuidPipe) id: string, @Query(vaultQueryPipe()) params: PageQuery) {
    const page = params.page ?? 1;
    const size = params.size ?? 20;
    return paginated(await this.bus.ask(new ListDeliveriesQuery(caller, id, { page, size })), page, size);
  }
}
