// Every audited event as one audit entry: who (the event's actor), which entity, which operation,
// a fixed text, when. Entries take ids, counts and times from events, nothing else: never data, names, keys or key
// hashes, masks, expressions, query values, args or configuration values, so a new field in an event cannot leak here.
import type { ApplicationEvent } from '../applications/application.events';
import type { ProxyEvent } from '../proxies/proxy.events';
import type { ReactorFormulaEvent } from '../reactor-formulas/reactor-formula.events';
import type { ReactorEvent } from '../reactors/reactor.events';
import { eventTypesOf, type EventMetadata } from '../shared/events';
import { isUuid } from '../shared/uuid';
import type { TenantEvent } from '../tenants/tenant.events';
import type { TokenEvent } from '../tokens/token.events';
import type { WebhookEvent } from '../webhooks/webhook.events';
import type { AccessRecordedData, AuditActorType, AuditEntityType, AuditEntry, AuditEvent, AuditOperation } from './audit';

/** Every event that becomes an entry: each aggregate's writes and the access records. */
export type AuditedEvent = TokenEvent | ApplicationEvent | ReactorEvent | ReactorFormulaEvent | ProxyEvent | WebhookEvent | TenantEvent | AuditEvent;

/** One key per member of AuditedEvent: a new event type of any of these aggregates fails to compile until it is listed. */
export const AUDITED_EVENT_TYPES = eventTypesOf<AuditedEvent['type']>({
  TokenCreated: true,
  TokenUpdated: true,
  TokenDeleted: true,
  ApplicationCreated: true,
  ApplicationUpdated: true,
  ApplicationKeyRegenerated: true,
  ApplicationDeleted: true,
  ReactorCreated: true,
  ReactorUpdated: true,
  ReactorDeleted: true,
  ReactorFormulaCreated: true,
  ReactorFormulaUpdated: true,
  ReactorFormulaDeleted: true,
  ProxyCreated: true,
  ProxyUpdated: true,
  ProxyDeleted: true,
  WebhookCreated: true,
  WebhookUpdated: true,
  WebhookDeleted: true,
  TenantCreated: true,
  TenantRenamed: true,
  TenantDeleted: true,
  AccessRecorded: true,
});

/** What an event says of itself; the actor comes from its metadata. tenant_id null: no tenant's entry (official formulas). */
type Described = Omit<AuditEntry, 'tenant_id' | 'actor_id' | 'actor_type'> & { tenant_id: string | null };

type EventOf<T extends AuditedEvent['type']> = Extract<AuditedEvent, { type: T }>;

const entry = (
  tenant_id: string | null,
  entity_type: AuditEntityType,
  entity_id: string | null,
  operation: AuditOperation,
  message: string,
  created_at: string,
): Described => ({ tenant_id, entity_type, entity_id, operation, message, created_at });

/** An exhaustive map: leaving an audited event type out fails to compile. */
const DESCRIBE: { [T in AuditedEvent['type']]: (data: EventOf<T>['data'], metadata: EventMetadata) => Described } = {
  TokenCreated: (d) => entry(d.tenant_id, 'token', d.id, 'create', 'Token created', d.created_at),
  TokenUpdated: (d) => entry(d.tenant_id, 'token', d.id, 'update', 'Token updated', d.modified_at),
  TokenDeleted: (d) =>
    entry(d.tenant_id, 'token', d.id, 'delete', d.reason === 'expired' ? 'Token deleted on expiry' : 'Token deleted', d.deleted_at),
  ApplicationCreated: (d) => entry(d.tenant_id, 'application', d.id, 'create', 'Application created', d.created_at),
  ApplicationUpdated: (d) => entry(d.tenant_id, 'application', d.id, 'update', 'Application updated', d.modified_at),
  ApplicationKeyRegenerated: (d) => entry(d.tenant_id, 'application', d.id, 'regenerate', 'Application key regenerated', d.modified_at),
  ApplicationDeleted: (d) => entry(d.tenant_id, 'application', d.id, 'delete', 'Application deleted', d.deleted_at),
  ReactorCreated: (d) => entry(d.tenant_id, 'reactor', d.id, 'create', 'Reactor created', d.created_at),
  ReactorUpdated: (d) => entry(d.tenant_id, 'reactor', d.id, 'update', 'Reactor updated', d.modified_at),
  ReactorDeleted: (d) => entry(d.tenant_id, 'reactor', d.id, 'delete', 'Reactor deleted', d.deleted_at),
  // Official formulas (tenant_id null) belong to no tenant, so to no tenant's log.
  ReactorFormulaCreated: (d) => entry(d.tenant_id, 'reactor_formula', d.id, 'create', 'Reactor formula created', d.created_at),
  ReactorFormulaUpdated: (d) => entry(d.tenant_id, 'reactor_formula', d.id, 'update', 'Reactor formula updated', d.modified_at),
  // The delete event carries no tenant: whose formula it was is the tenant the delete was made in.
  ReactorFormulaDeleted: (d, m) => entry(m.tenant_id, 'reactor_formula', d.id, 'delete', 'Reactor formula deleted', d.deleted_at),
  ProxyCreated: (d) => entry(d.tenant_id, 'proxy', d.id, 'create', 'Proxy created', d.created_at),
  ProxyUpdated: (d) => entry(d.tenant_id, 'proxy', d.id, 'update', 'Proxy updated', d.modified_at),
  ProxyDeleted: (d) => entry(d.tenant_id, 'proxy', d.id, 'delete', 'Proxy deleted', d.deleted_at),
  WebhookCreated: (d) => entry(d.tenant_id, 'webhook', d.id, 'create', 'Webhook created', d.created_at),
  WebhookUpdated: (d) => entry(d.tenant_id, 'webhook', d.id, 'update', 'Webhook updated', d.modified_at),
  WebhookDeleted: (d) => entry(d.tenant_id, 'webhook', d.id, 'delete', 'Webhook deleted', d.deleted_at),
  TenantCreated: (d) => entry(d.id, 'tenant', d.id, 'create', 'Tenant created', d.created_at),
  TenantRenamed: (d) => entry(d.id, 'tenant', d.id, 'update', 'Tenant renamed', d.modified_at),
  TenantDeleted: (d) => entry(d.id, 'tenant', d.id, 'delete', 'Tenant deleted', d.deleted_at),
  AccessRecorded: (d) => entry(d.tenant_id, d.entity_type, d.entity_id, d.operation, accessMessage(d), d.created_at),
};

/** How a reveal reached the caller, as a fixed text. */
const REVEALED_BY: Record<AccessRecordedData['via'], string> = {
  get: 'GET /tokens/{id}',
  search: 'search',
  detokenize: 'detokenize',
  react: 'react',
  dedupe: 'deduplication',
  update: 'update answer',
  proxy: 'proxy',
};

/** Counts and ids only: an access record's message never says what was searched for or what was used. */
export function accessMessage(data: AccessRecordedData): string {
  switch (data.operation) {
    case 'reveal':
      return `Token revealed in plaintext (${REVEALED_BY[data.via]})`;
    case 'search': {
      const count = data.count;
      if (count === undefined || !Number.isSafeInteger(count) || count < 0) return 'Search returned tokens in plaintext';
      return `Search returned ${count} ${count === 1 ? 'token' : 'tokens'} in plaintext`;
    }
    case 'use': {
      const by = data.via === 'proxy' ? proxyNamed(data.proxy_id) : reactorNamed(data.reactor_id);
      return data.withheld === true ? `Token data withheld from the answer of ${by}` : `Token used by ${by}`;
    }
    case 'invoke':
      if (data.entity_type !== 'proxy') return 'Reactor invoked';
      return data.entity_id === null ? 'Ephemeral proxy invoked' : 'Proxy invoked';
  }
}

const reactorNamed = (id: unknown): string => (typeof id === 'string' && isUuid(id) ? `reactor ${id}` : 'a reactor');

const proxyNamed = (id: unknown): string => (typeof id === 'string' && isUuid(id) ? `proxy ${id}` : 'an ephemeral proxy');

/** Applications act as themselves, an anonymous proxy invocation as nobody; the operator's CLI and the vault's own jobs are the operator. */
const actorTypeOf = (metadata: EventMetadata): AuditActorType =>
  metadata.actor.type === 'application' || metadata.actor.type === 'anonymous' ? metadata.actor.type : 'operator';

export const isAuditedEventType = (type: string): type is AuditedEvent['type'] => Object.prototype.hasOwnProperty.call(DESCRIBE, type);

/**
 * The entry an event makes, or null for an event no tenant's log holds (an official formula's, or a type that is not
 * audited). `event` is any stored event: its type decides how its data is read.
 */
export function auditEntryOf(event: { type: string; data: unknown; metadata: EventMetadata }): AuditEntry | null {
  if (!isAuditedEventType(event.type)) return null;
  const describe = DESCRIBE[event.type] as (data: unknown, metadata: EventMetadata) => Described;
  const { tenant_id, created_at, ...described } = describe(event.data, event.metadata);
  // An event written before a field existed must not stop the projector: its metadata says the same.
  const tenant = tenant_id === undefined ? event.metadata.tenant_id : tenant_id;
  if (tenant === null) return null;
  return {
    tenant_id: tenant,
    actor_id: event.metadata.actor.id,
    actor_type: actorTypeOf(event.metadata),
    ...described,
    created_at: typeof created_at === 'string' ? created_at : event.metadata.timestamp,
  };
}

/** The operations of access records: what retention drops. Entries of writes are kept for as long as the log is. */
export const ACCESS_OPERATIONS = eventTypesOf<AccessRecordedData['operation']>({ reveal: true, search: true, use: true, invoke: true });
