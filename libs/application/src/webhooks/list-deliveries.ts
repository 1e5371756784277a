// GET /webhooks/{id}/deliveries: a page of the webhook's deliveries, the latest event first, each as its last attempt
// left it. Only attempted deliveries are listed: an event waiting for its first attempt (a few milliseconds at most,
// unless an earlier event of the same webhook is being retried) appears once it is tried.
import { notFound } from '@vault/domain';
import type { Page, PageRequest } from '../ports/read-models';
import type { DeliveryReadModel, WebhookReadModel } from '../ports/webhooks';
import { VaultQuery, type Caller, type UseCaseHandler } from '../shared/use-case';

export interface DeliveryView {
  event_id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  first_attempt_at: string;
  last_attempt_at: string;
  next_attempt_at: string | null;
}

export class ListDeliveriesQuery extends VaultQuery<Page<DeliveryView>> {
  constructor(
    readonly caller: Caller,
    readonly webhookId: string,
    readonly page: PageRequest,
  ) {
    super();
  }
}

export class ListDeliveriesHandler implements UseCaseHandler<ListDeliveriesQuery> {
  constructor(
    private readonly webhooks: WebhookReadModel,
    private readonly deliveries: DeliveryReadModel,
  ) {}

  async execute({ caller, webhookId, page }: ListDeliveriesQuery): Promise<Page<DeliveryView>> {
    const tenantId = caller.principal.tenantId;
    if (!(await this.webhooks.get(tenantId, webhookId))) throw notFound('Webhook');
    const found = await this.deliveries.list(tenantId, webhookId, page);
    return {
      total: found.total,
      items: found.items.map((d) => ({
        event_id: d.event_id,
        event_type: d.event_type,
        state: d.state,
        attempts: d.attempts,
        last_status: d.last_status,
        first_attempt_at: d.first_attempt_at,
        last_attempt_at: d.attempted_at,
        next_attempt_at: d.next_attempt_at,
      })),
    };
  }
}
