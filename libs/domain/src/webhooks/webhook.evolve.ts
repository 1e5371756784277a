import type { WebhookEvent } from './webhook.events';
import type { WebhookState } from './webhook.state';

export const evolveWebhook = (state: WebhookState, event: WebhookEvent): WebhookState => {
  switch (event.type) {
    case 'WebhookCreated': {
      const { created_by, created_at, ...fields } = event.data;
      return { status: 'active', webhook: { ...fields, created_by, created_at, modified_by: null, modified_at: null } };
    }
    case 'WebhookUpdated': {
      if (state.status !== 'active') return state;
      const { modified_by, modified_at, ...fields } = event.data;
      const { created_by, created_at } = state.webhook;
      return { status: 'active', webhook: { ...fields, created_by, created_at, modified_by, modified_at } };
    }
    case 'WebhookDeleted':
      return { status: 'deleted', id: event.data.id, tenant_id: event.data.tenant_id };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};
