import { WEBHOOK_DELIVERY_EVENT_TYPES, webhookKey, type WebhookDeliveryRecordedData } from '@vault/domain';
import type { DeliveryDocument } from '../ports/webhooks';
import type { Projection } from './projection';

/** Each event's delivery to a webhook, as its last recorded attempt left it (ids, counts, statuses and times only). */
export const deliveriesProjection: Projection<DeliveryDocument> = {
  collection: 'webhook_deliveries',
  eventTypes: WEBHOOK_DELIVERY_EVENT_TYPES,
  documentId: (event) => {
    const data = event.data as WebhookDeliveryRecordedData;
    return `${webhookKey(data.tenant_id, data.webhook_id)}_${data.event_id}`;
  },
  evolve(_doc, event) {
    const d = event.data as WebhookDeliveryRecordedData;
    return {
      tenant_id: d.tenant_id,
      webhook_id: d.webhook_id,
      event_id: d.event_id,
      event_type: d.event_type,
      position: d.position,
      state: d.state,
      attempts: d.attempts,
      last_status: d.last_status,
      first_attempt_at: d.first_attempt_at,
      attempted_at: d.attempted_at,
      next_attempt_at: d.next_attempt_at,
    };
  },
};
