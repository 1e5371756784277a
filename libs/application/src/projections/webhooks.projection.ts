import { evolveWebhook, initialWebhookState, WEBHOOK_AGGREGATE_EVENT_TYPES, webhookKey, type WebhookEvent, type WebhookRecord } from '@vault/domain';
import type { Projection } from './projection';

/** The webhook read-model document is the webhook record (its signing secret sealed), keyed by tenant and id. */
export const webhooksProjection: Projection<WebhookRecord> = {
  collection: 'webhooks',
  eventTypes: WEBHOOK_AGGREGATE_EVENT_TYPES,
  documentId: (event) => webhookKey((event.data as WebhookEvent['data']).tenant_id, (event.data as WebhookEvent['data']).id),
  evolve(doc, event) {
    const state = evolveWebhook(doc ? { status: 'active', webhook: doc } : initialWebhookState(), event as unknown as WebhookEvent);
    return state.status === 'active' ? state.webhook : null;
  },
};
