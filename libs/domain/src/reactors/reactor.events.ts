// Reactor events: plain data, stored forever under these type strings. They never hold a configuration value in
// plaintext: the configuration is sealed, only its shape (names and declared
// types, which the formula publishes anyway) is readable.
import { eventTypesOf, type DomainEvent } from '../shared/events';
import type { ReactorContent } from './reactor.types';

export interface ReactorFields extends ReactorContent {
  id: string;
  tenant_id: string;
  /** A reactor keeps its formula for life; a PUT or PATCH cannot change it. */
  formula_id: string;
}

export interface ReactorCreatedData extends ReactorFields {
  created_by: string;
  /** ISO 8601. */
  created_at: string;
}

/** Carries the whole reactor after the change, not a diff, so read models need no earlier event to apply it. */
export interface ReactorUpdatedData extends ReactorFields {
  modified_by: string;
  /** ISO 8601. */
  modified_at: string;
}

/** `formula_id` lets a projection that counts a formula's reactors drop this one without reading its document. */
export interface ReactorDeletedData {
  id: string;
  tenant_id: string;
  formula_id: string;
  deleted_by: string;
  /** ISO 8601. */
  deleted_at: string;
}

export type ReactorCreated = DomainEvent<'ReactorCreated', ReactorCreatedData>;
export type ReactorUpdated = DomainEvent<'ReactorUpdated', ReactorUpdatedData>;
export type ReactorDeleted = DomainEvent<'ReactorDeleted', ReactorDeletedData>;

export type ReactorEvent = ReactorCreated | ReactorUpdated | ReactorDeleted;

export const REACTOR_EVENT_TYPES = eventTypesOf<ReactorEvent['type']>({
  ReactorCreated: true,
  ReactorUpdated: true,
  ReactorDeleted: true,
});

export const isReactorEvent = (event: DomainEvent): event is ReactorEvent =>
  (REACTOR_EVENT_TYPES as readonly string[]).includes(event.type);

export const REACTOR_STREAM_PREFIX = 'reactor-';

/** A reactor's key (its stream, its read-model documents): the tenant and the id, as for tokens. Ids are UUIDs. */
export const reactorKey = (tenantId: string, id: string): string => `${tenantId}_${id}`;

/** One stream per reactor of a tenant: another tenant's reactor is never in the state a decision sees. */
export const reactorStream = (tenantId: string, id: string): string => REACTOR_STREAM_PREFIX + reactorKey(tenantId, id);
