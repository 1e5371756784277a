// Which events of the log a webhook hears of, and what it is told: the entity's id, a token's type, the actor's id.
// Never token data, masks, fingerprints, metadata, names, keys or configuration: the body is built from this list of
// fields alone, so a new field in an event cannot reach a receiver.
import type { DomainEvent, EventMetadata } from '../shared/events';
import { isUuid } from '../shared/uuid';
import type { WebhookEventType } from './webhook.types';

/** The log's event types a webhook event type comes from. */
const TYPE_OF: Record<string, WebhookEventType> = {
  TokenCreated: 'token.created',
  TokenUpdated: 'token.updated',
  TokenDeleted: 'token.deleted',
  ApplicationCreated: 'application.created',
  ApplicationUpdated: 'application.updated',
  ApplicationDeleted: 'application.deleted',
  ApplicationKeyRegenerated: 'application.key_regenerated',
  ReactorFormulaCreated: 'reactor_formula.created',
  ReactorFormulaUpdated: 'reactor_formula.updated',
  ReactorFormulaDeleted: 'reactor_formula.deleted',
  ReactorCreated: 'reactor.created',
  ReactorUpdated: 'reactor.updated',
  ReactorDeleted: 'reactor.deleted',
  ProxyCreated: 'proxy.created',
  ProxyUpdated: 'proxy.updated',
  ProxyDeleted: 'proxy.deleted',
  TenantRenamed: 'tenant.updated',
};

/** The streams those events are in (for a subscription that skips the rest, access records above all). */
export const NOTIFIED_STREAM_PREFIXES = ['token-', 'application-', 'formula-', 'reactor-', 'proxy-', 'tenant-'] as const;

/** A log event as a webhook sees it, before its id and token type are known. */
export interface Notification {
  tenantId: string;
  type: WebhookEventType;
  entityId: string;
  actorId: string;
  /** ISO 8601: when the event was recorded. */
  createdAt: string;
  /** For token events: the token's type, when the event carries it (a create does; an update or delete may not). */
  tokenType: string | null;
}

/** The notification an event of the log makes, or null: not a type webhooks hear of, or no tenant's (official formulas). */
export const notificationOf = (event: DomainEvent, metadata: EventMetadata): Notification | null => {
  const type = Object.hasOwn(TYPE_OF, event.type) ? TYPE_OF[event.type] : undefined;
  if (type === undefined) return null;
  const data = (event.data ?? {}) as { id?: unknown; tenant_id?: unknown; type?: unknown };
  const tenantId = type === 'tenant.updated' ? data.id : data.tenant_id;
  if (typeof tenantId !== 'string' || tenantId.length === 0 || typeof data.id !== 'string') return null;
  if (metadata.tenant_id !== null && metadata.tenant_id !== tenantId) return null;
  return {
    tenantId,
    type,
    entityId: data.id,
    actorId: metadata.actor.id,
    createdAt: metadata.timestamp,
    tokenType: type.startsWith('token.') && typeof data.type === 'string' ? data.type : null,
  };
};

/** What a receiver gets: `{ id, type, tenant_id, created_at, data }`. */
export interface WebhookBody {
  id: string;
  type: WebhookEventType;
  tenant_id: string;
  created_at: string;
  data: { id: string; type?: string; actor_id: string };
}

export const webhookBody = (eventId: string, notification: Notification): WebhookBody => ({
  id: eventId,
  type: notification.type,
  tenant_id: notification.tenantId,
  created_at: notification.createdAt,
  data: {
    id: notification.entityId,
    ...(notification.tokenType === null ? {} : { type: notification.tokenType }),
    // An application's id, or the fixed name of an operator's tool (`cli`, `bootstrap`); nothing else is an actor.
    actor_id: isUuid(notification.actorId) || /^[a-z][a-z0-9_-]{0,40}$/.test(notification.actorId) ? notification.actorId : 'unknown',
  },
});

/** Retries: the first within 2 s, then doubling, at most an hour apart, for the retry window (24 h by default). */
export const retryDelayMs = (failedAttempts: number): number => Math.min(2_000 * 2 ** Math.max(0, failedAttempts - 1), 3_600_000);

export const DEFAULT_RETRY_WINDOW_MS = 24 * 3_600_000;
