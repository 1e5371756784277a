// GET /webhooks/{id}: the tenant's webhook, without its signing secret.
import { notFound } from '@vault/domain';
import type { WebhookReadModel } from '../ports/webhooks';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toWebhookView, type WebhookView } from './webhook-view';

export class GetWebhookQuery extends VaultQuery<WebhookView> {
  constructor(
    readonly caller: Caller,
    readonly id: string,
  ) {
    super();
  }
}

export class GetWebhookHandler implements UseCaseHandler<GetWebhookQuery> {
  constructor(private readonly webhooks: WebhookReadModel) {}

  async execute({ caller, id }: GetWebhookQuery): Promise<WebhookView> {
    const webhook = await this.webhooks.get(caller.principal.tenantId, id);
    if (!webhook) throw notFound('Webhook');
    return toWebhookView(webhook);
  }
}
