// A tenant: the boundary of every resource. Created by the operator (CLI) or the development bootstrap; renamed and
// deleted by its own management applications (`/tenants/self`) or the operator (`tenant delete`).
import { eventTypesOf, type DomainEvent } from '../shared/events';

export const TENANT_STREAM_PREFIX = 'tenant-';
export const tenantStream = (id: string) => `${TENANT_STREAM_PREFIX}${id}`;

export type TenantCreated = DomainEvent<'TenantCreated', { id: string; name: string; created_by: string; created_at: string }>;
export type TenantRenamed = DomainEvent<'TenantRenamed', { id: string; name: string; modified_by: string; modified_at: string }>;
/** The tenant and everything in it are gone: its key is destroyed, so every token's data is shredded with it. */
export type TenantDeleted = DomainEvent<'TenantDeleted', { id: string; deleted_by: string; deleted_at: string }>;
export type TenantEvent = TenantCreated | TenantRenamed | TenantDeleted;

export const TENANT_EVENT_TYPES = eventTypesOf<TenantEvent['type']>({ TenantCreated: true, TenantRenamed: true, TenantDeleted: true });

export const isTenantEvent = (event: DomainEvent): event is TenantEvent =>
  (TENANT_EVENT_TYPES as readonly string[]).includes(event.type);
