// The data a webhook is made of. Its signing secret is sealed under the webhook's own data key (wrapped by the tenant's
// key), so a stolen event log or read model signs nothing, and it is shredded with the webhook and with the tenant.
import type { EncryptedData } from '../tokens/sealed-data';

/** Every event type a webhook may subscribe to, in the order the API lists them. */
export const WEBHOOK_EVENT_TYPES = [
  'token.created',
  'token.updated',
  'token.deleted',
  'application.created',
  'application.updated',
  'application.deleted',
  'application.key_regenerated',
  'reactor_formula.created',
  'reactor_formula.updated',
  'reactor_formula.deleted',
  'reactor.created',
  'reactor.updated',
  'reactor.deleted',
  'proxy.created',
  'proxy.updated',
  'proxy.deleted',
  'tenant.updated',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (value: unknown): value is WebhookEventType =>
  typeof value === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);

/** A webhook's settings after validation: what a create or a PUT gives. */
export interface ValidWebhook {
  name: string;
  url: string;
  /** Distinct, in the order WEBHOOK_EVENT_TYPES lists them. */
  events: WebhookEventType[];
  enabled: boolean;
}

/** What a create or update records: the settings, and the signing secret sealed (it never changes after the create). */
export interface WebhookContent extends ValidWebhook {
  sealed_secret: EncryptedData;
}
