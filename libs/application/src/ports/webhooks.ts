// What webhooks need from outside: their read models (the webhooks, and their deliveries' states), and the crypto that
// signs a body, makes a signing secret and names a log event for receivers.
import type { DeliveryState, WebhookEventType, WebhookRecord } from '@vault/domain';
import type { Page, PageRequest } from './read-models';

/** A webhook as the read model keeps it: the webhook record, its signing secret sealed. */
export type WebhookDocument = WebhookRecord;

export interface WebhookReadModel {
  /** The tenant's webhook, or null (another tenant's webhook with this id is as good as absent). */
  get(tenantId: string, id: string): Promise<WebhookDocument | null>;
  /** A page of the tenant's webhooks, newest first (then by id). */
  list(tenantId: string, page: PageRequest): Promise<Page<WebhookDocument>>;
  /** Every live webhook of every tenant (what the delivery dispatcher starts from). */
  all(): Promise<WebhookDocument[]>;
}

/** One event's delivery to one webhook, as its last recorded attempt left it. */
export interface DeliveryDocument {
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: WebhookEventType;
  /** The delivered event's log position, encoded: deliveries are listed newest (latest in the log) first. */
  position: string;
  state: DeliveryState;
  attempts: number;
  last_status: number | null;
  first_attempt_at: string;
  attempted_at: string;
  next_attempt_at: string | null;
}

export interface DeliveryReadModel {
  /** A page of one webhook's deliveries, the latest event in the log first. */
  list(tenantId: string, webhookId: string, page: PageRequest): Promise<Page<DeliveryDocument>>;
}

export interface WebhookCrypto {
  /** A new signing secret (≥ 256 random bits), shown once. */
  newSigningSecret(): string;
  /** Hex HMAC-SHA256 of `text` under `secret`. */
  sign(secret: string, text: string): string;
  /** The id receivers know a log event by: the same for every delivery of it, from every process; a UUID. */
  eventId(streamId: string, revision: bigint): string;
}
