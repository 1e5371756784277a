// A webhook as the decisions see it. The record suits a read-model document too (its secret stays sealed).
import type { WebhookFields } from './webhook.events';

export interface WebhookRecord extends WebhookFields {
  created_by: string;
  created_at: string;
  /** Null until the first update. */
  modified_by: string | null;
  modified_at: string | null;
}

/** `deleted` is kept apart from `absent`: a deleted id stays taken. */
export type WebhookState = { status: 'absent' } | { status: 'active'; webhook: WebhookRecord } | { status: 'deleted'; id: string; tenant_id: string };

export const initialWebhookState = (): WebhookState => ({ status: 'absent' });

/** The webhook a caller of `tenantId` may see, or null: missing, deleted and other tenants' webhooks are all missing. */
export const visibleWebhook = (state: WebhookState, tenantId: string | null): WebhookRecord | null =>
  state.status === 'active' && state.webhook.tenant_id === tenantId ? state.webhook : null;
