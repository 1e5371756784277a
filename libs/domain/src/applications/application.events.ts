// Application (API client) events. Keys never appear here: only their SHA-256 hash.
import { eventTypesOf, type DomainEvent } from '../shared/events';
import type { ApplicationType } from '../permissions/permission-catalogue';
import type { AccessRule } from '../access/access-rules';

export const applicationStream = (id: string) => `application-${id}`;

export interface ApplicationSettings {
  name: string;
  type: ApplicationType;
  permissions: string[];
  rules: AccessRule[];
  expires_at: string | null;
}

export type ApplicationCreated = DomainEvent<
  'ApplicationCreated',
  ApplicationSettings & { id: string; tenant_id: string; key_hash: string; created_by: string; created_at: string }
>;

export type ApplicationUpdated = DomainEvent<
  'ApplicationUpdated',
  ApplicationSettings & { id: string; tenant_id: string; modified_by: string; modified_at: string }
>;

export type ApplicationKeyRegenerated = DomainEvent<
  'ApplicationKeyRegenerated',
  { id: string; tenant_id: string; key_hash: string; modified_by: string; modified_at: string }
>;

export type ApplicationDeleted = DomainEvent<
  'ApplicationDeleted',
  { id: string; tenant_id: string; deleted_by: string; deleted_at: string }
>;

export type ApplicationEvent = ApplicationCreated | ApplicationUpdated | ApplicationKeyRegenerated | ApplicationDeleted;

export const APPLICATION_EVENT_TYPES = eventTypesOf<ApplicationEvent['type']>({
  ApplicationCreated: true,
  ApplicationUpdated: true,
  ApplicationKeyRegenerated: true,
  ApplicationDeleted: true,
});
