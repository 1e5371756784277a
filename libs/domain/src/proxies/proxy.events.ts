// Proxy events: plain data, stored forever under these type strings. Nothing secret is readable in them: the key,
// destination, configuration and transforms are sealed (proxy.types.ts).
import { eventTypesOf, type DomainEvent } from '../shared/events';
import type { ProxyContent } from './proxy.types';

export interface ProxyFields extends ProxyContent {
  id: string;
  tenant_id: string;
}

export interface ProxyCreatedData extends ProxyFields {
  created_by: string;
  /** ISO 8601. */
  created_at: string;
}

/** The whole proxy after the change, not a diff, so read models need no earlier event to apply it. */
export interface ProxyUpdatedData extends ProxyFields {
  modified_by: string;
  /** ISO 8601. */
  modified_at: string;
}

export interface ProxyDeletedData {
  id: string;
  tenant_id: string;
  deleted_by: string;
  /** ISO 8601. */
  deleted_at: string;
}

export type ProxyCreated = DomainEvent<'ProxyCreated', ProxyCreatedData>;
export type ProxyUpdated = DomainEvent<'ProxyUpdated', ProxyUpdatedData>;
export type ProxyDeleted = DomainEvent<'ProxyDeleted', ProxyDeletedData>;
export type ProxyEvent = ProxyCreated | ProxyUpdated | ProxyDeleted;

export const PROXY_EVENT_TYPES = eventTypesOf<ProxyEvent['type']>({ ProxyCreated: true, ProxyUpdated: true, ProxyDeleted: true });

export const isProxyEvent = (event: DomainEvent): event is ProxyEvent => (PROXY_EVENT_TYPES as readonly string[]).includes(event.type);

export const PROXY_STREAM_PREFIX = 'proxy-';

/** A proxy's key in its stream and read-model documents: the tenant and the id, as for reactors. */
export const proxyKey = (tenantId: string, id: string): string => `${tenantId}_${id}`;

/** One stream per proxy of a tenant: another tenant's proxy is never in the state a decision sees. */
export const proxyStream = (tenantId: string, id: string): string => PROXY_STREAM_PREFIX + proxyKey(tenantId, id);
