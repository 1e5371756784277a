// A webhook as the API shows it: its settings; the signing secret only in the create's answer.
import type { WebhookEventType, WebhookRecord, WebhookState } from '@vault/domain';

export interface WebhookView {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  created_by: string;
  created_at: string;
  modified_by?: string;
  modified_at?: string;
  /** Only in the answer to POST /webhooks. */
  signing_secret?: string;
}

export const toWebhookView = (webhook: WebhookRecord): WebhookView => ({
  id: webhook.id,
  tenant_id: webhook.tenant_id,
  name: webhook.name,
  url: webhook.url,
  events: webhook.events,
  enabled: webhook.enabled,
  created_by: webhook.created_by,
  created_at: webhook.created_at,
  ...(webhook.modified_by === null ? {} : { modified_by: webhook.modified_by }),
  ...(webhook.modified_at === null ? {} : { modified_at: webhook.modified_at }),
});

/** The webhook a successful create or update leaves. */
export function activeWebhook(state: WebhookState): WebhookRecord {
  if (state.status !== 'active') throw new Error('The webhook is not active after the command.');
  return state.webhook;
}
