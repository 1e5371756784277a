// Webhook events: plain data, stored forever under these type strings. The signing secret is sealed (webhook.types.ts).
// A webhook's deliveries are recorded in a stream of their own (deliveryStream): the webhook's stream stays a few
// events long, so a decision reads it cheaply however many deliveries it has made.
import { eventTypesOf, type DomainEvent } from '../shared/events';
import type { WebhookContent, WebhookEventType } from './webhook.types';

export interface WebhookFields extends WebhookContent {
  id: string;
  tenant_id: string;
}

export interface WebhookCreatedData extends WebhookFields {
  created_by: string;
  /** ISO 8601. */
  created_at: string;
}

/** The whole webhook after the change, not a diff. */
export interface WebhookUpdatedData extends WebhookFields {
  modified_by: string;
  /** ISO 8601. */
  modified_at: string;
}

export interface WebhookDeletedData {
  id: string;
  tenant_id: string;
  deleted_by: string;
  /** ISO 8601. */
  deleted_at: string;
}

export type WebhookCreated = DomainEvent<'WebhookCreated', WebhookCreatedData>;
export type WebhookUpdated = DomainEvent<'WebhookUpdated', WebhookUpdatedData>;
export type WebhookDeleted = DomainEvent<'WebhookDeleted', WebhookDeletedData>;
export type WebhookEvent = WebhookCreated | WebhookUpdated | WebhookDeleted;

export const WEBHOOK_AGGREGATE_EVENT_TYPES = eventTypesOf<WebhookEvent['type']>({ WebhookCreated: true, WebhookUpdated: true, WebhookDeleted: true });

export type DeliveryState = 'pending' | 'delivered' | 'failed';

/**
 * One attempt's outcome for one event of the log: `pending` after a failed attempt that will be retried, `delivered`
 * after a 2xx, `failed` once the retry window has passed. The last one recorded for an event is its delivery's state;
 * the webhook's position in the log is the source position of its last `delivered` or `failed` record.
 */
export interface WebhookDeliveryRecordedData {
  webhook_id: string;
  tenant_id: string;
  /** The delivered event's id (the `id` of the body and SVC-Webhook-Id). */
  event_id: string;
  event_type: WebhookEventType;
  /** The delivered event's position in the log, encoded (`commit:prepare`). */
  position: string;
  /** Where the webhook's position was before this event (encoded; null: its create): a restart resumes after it. */
  resume_after: string | null;
  state: DeliveryState;
  attempts: number;
  /** The receiver's last status; null when no answer came (refused, timed out, host no longer allowed). */
  last_status: number | null;
  /** ISO 8601: when the first attempt was made (the retry window counts from it). */
  first_attempt_at: string;
  /** ISO 8601: when this attempt was made. */
  attempted_at: string;
  /** ISO 8601: when the next attempt is due; null unless pending. */
  next_attempt_at: string | null;
}

export type WebhookDeliveryRecorded = DomainEvent<'WebhookDeliveryRecorded', WebhookDeliveryRecordedData>;

export const WEBHOOK_DELIVERY_EVENT_TYPES = eventTypesOf<WebhookDeliveryRecorded['type']>({ WebhookDeliveryRecorded: true });

export const WEBHOOK_STREAM_PREFIX = 'webhook-';
export const DELIVERY_STREAM_PREFIX = 'delivery-';

/** A webhook's key in its stream and read-model documents: the tenant and the id. */
export const webhookKey = (tenantId: string, id: string): string => `${tenantId}_${id}`;

export const webhookStream = (tenantId: string, id: string): string => WEBHOOK_STREAM_PREFIX + webhookKey(tenantId, id);

export const deliveryStream = (tenantId: string, webhookId: string): string => DELIVERY_STREAM_PREFIX + webhookKey(tenantId, webhookId);
