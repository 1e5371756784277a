// The audit log: who touched which entity, when. Writes are entries derived from the events the
// vault stores anyway; reads that return plaintext, `token:use` in reactors and reactor invocations are access records,
// appended as events of their own to one audit stream per tenant. Neither ever holds token data, keys, query values,
// args or configuration values: only ids, counts and fixed texts.
import { eventTypesOf, type DomainEvent } from '../shared/events';

export const AUDIT_ENTITY_TYPES = ['token', 'application', 'reactor', 'reactor_formula', 'proxy', 'webhook', 'tenant'] as const;
export type AuditEntityType = (typeof AUDIT_ENTITY_TYPES)[number];

export const AUDIT_OPERATIONS = ['create', 'read', 'update', 'delete', 'reveal', 'search', 'use', 'invoke', 'regenerate'] as const;
export type AuditOperation = (typeof AUDIT_OPERATIONS)[number];

/** `anonymous`: an invocation of a proxy that needs no API key (its actor_id is `anonymous`). */
export type AuditActorType = 'application' | 'operator' | 'anonymous';

/** One entry of `GET /logs`, exactly the fields the API documents. */
export interface AuditEntry {
  tenant_id: string;
  actor_id: string;
  actor_type: AuditActorType;
  entity_type: AuditEntityType;
  /** null for a search, which touches no one entity (its message holds the count). */
  entity_id: string | null;
  operation: AuditOperation;
  /** A fixed text per kind of entry, plus counts: never data, keys, query values, args or configuration values. */
  message: string;
  created_at: string;
}

/** The stream that holds a tenant's access records. */
export const auditStream = (tenantId: string) => `audit-${tenantId}`;

/** The operations an access record can have: reads that returned plaintext, uses of token data, invocations. */
export type AccessOperation = Extract<AuditOperation, 'reveal' | 'search' | 'use' | 'invoke'>;

export interface AccessRecordedData {
  tenant_id: string;
  entity_type: Extract<AuditEntityType, 'token' | 'reactor' | 'proxy'>;
  entity_id: string | null;
  operation: AccessOperation;
  /**
   * What showed it, as a fixed value: `GET /tokens/{id}`, a search, detokenize, a reactor, a deduplicated create
   * (POST /tokens, /tokenize or a reactor's tokenize answering with an existing token), an update's answer showing
   * stored data the caller did not send, or a proxy invocation.
   */
  via: 'get' | 'search' | 'detokenize' | 'react' | 'dedupe' | 'update' | 'proxy';
  /** For a search: how many tokens it returned in plaintext. */
  count?: number;
  /** The reactor a `use` happened in. */
  reactor_id?: string;
  /** The proxy a `use` happened in; absent for an ephemeral proxy invocation (no proxy object). */
  proxy_id?: string;
  /**
   * A `use` whose data the answer of the code (or destination) held and the vault replaced by the caller's own view
   * before answering: what came back was withheld, not shown.
   */
  withheld?: boolean;
  created_at: string;
}

export type AccessRecorded = DomainEvent<'AccessRecorded', AccessRecordedData>;
export type AuditEvent = AccessRecorded;

export const AUDIT_EVENT_TYPES = eventTypesOf<AuditEvent['type']>({ AccessRecorded: true });
