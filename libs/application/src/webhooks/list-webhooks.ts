// GET /webhooks: a page of the tenant's webhooks, newest first.
import type { Page, PageRequest } from '../ports/read-models';
import type { WebhookReadModel } from '../ports/webhooks';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';
import { toWebhookView, type WebhookView } from './webhook-view';

export class ListWebhooksQuery extends VaultQuery<Page<WebhookView>> {
  constructor(
    readonly caller: Caller,
    readonly page: PageRequest,
  ) {
    super();
  }
}

export class ListWebhooksHandler implements UseCaseHandler<ListWebhooksQuery> {
  constructor(private readonly webhooks: WebhookReadModel) {}

  async execute({ caller, page }: ListWebhooksQuery): Promise<Page<WebhookView>> {
    const found = await this.webhooks.list(caller.principal.tenantId, page);
    return { total: found.total, items: found.items.map(toWebhookView) };
  }
}
