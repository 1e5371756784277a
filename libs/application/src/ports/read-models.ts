// The queries the API asks of the read models. Each adapter (embedded SQLite, Meilisearch) answers them.
import type { AccessRule, ApplicationType } from '@vault/domain';

export interface Page<T> {
  items: T[];
  total: number;
}

export interface PageRequest {
  page: number;
  size: number;
}

export interface TenantDocument {
  id: string;
  name: string;
  created_by: string;
  created_at: string;
}

export interface ApplicationDocument {
  id: string;
  tenant_id: string;
  name: string;
  type: ApplicationType;
  permissions: string[];
  rules: AccessRule[];
  expires_at: string | null;
  key_hash: string;
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
}

export interface TenantReadModel {
  get(id: string): Promise<TenantDocument | null>;
  count(): Promise<number>;
}

export interface ApplicationReadModel {
  findByKeyHash(keyHash: string): Promise<ApplicationDocument | null>;
  get(tenantId: string, id: string): Promise<ApplicationDocument | null>;
  /** Newest first (created_at descending, then id). */
  list(tenantId: string, page: PageRequest): Promise<Page<ApplicationDocument>>;
}

export const TENANT_READ_MODEL = Symbol('TenantReadModel');
export const APPLICATION_READ_MODEL = Symbol('ApplicationReadModel');
