// The queries the API asks of the read models. Each adapter (embedded SQLite, Meilisearch) answers them.
import type { AccessRule, ApplicationType, ProxyRecord, ReactorFormula, ReactorOfFormula, ReactorRecord } from '@vault/domain';
import type { AuditEntry, AuditLogFilter } from '@vault/domain';

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
  modified_by?: string;
  modified_at?: string;
  /** A deleted tenant's tombstone: its keys authenticate nobody and the projector drops its later events. */
  deleted?: true;
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
  /**
   * Optional: a number that changes whenever any application or tenant document changes, whoever wrote it (this
   * process's projector or another process's). Lets callers cache key lookups safely; an adapter that cannot see
   * another writer's changes cheaply leaves it out.
   */
  changeStamp?(): number;
  get(tenantId: string, id: string): Promise<ApplicationDocument | null>;
  /** Newest first (created_at descending, then id). */
  list(tenantId: string, page: PageRequest): Promise<Page<ApplicationDocument>>;
}

/** A formula as the read model keeps it: official formulas have tenant_id null and are visible to every tenant. */
export type FormulaDocument = ReactorFormula;

export interface FormulaListQuery {
  /**
   * The `name` filter, case-insensitive: `*` matches any run of characters and the whole name must match;
   * a value without `*` matches names containing it. null = no filter.
   */
  name: string | null;
  page: number;
  size: number;
}

export interface FormulaReadModel {
  /** The formula if it is official or belongs to `tenantId`; null otherwise (another tenant's is as good as absent). */
  get(tenantId: string, id: string): Promise<FormulaDocument | null>;
  /** Official formulas plus the tenant's private ones, ordered by name (case-insensitive) then id, with the exact total. */
  list(tenantId: string, query: FormulaListQuery): Promise<Page<FormulaDocument>>;
}

/**
 * A reactor as the read model keeps it (the reactor record): the configuration sealed, its shape in the clear. Stored
 * under reactorKey(tenant_id, id): reactor ids are unique within a tenant only.
 */
export type ReactorDocument = ReactorRecord;

/** The same `name` filter and pagination as formulas. */
export type ReactorListQuery = FormulaListQuery;

/** What the formula-change check reads of each reactor of a formula, and whose reactor it is. */
export interface ReactorOfFormulaDocument extends ReactorOfFormula {
  tenant_id: string;
}

export interface ReactorReadModel {
  /** The tenant's reactor, or null (another tenant's reactor with this id is as good as absent). */
  get(tenantId: string, id: string): Promise<ReactorDocument | null>;
  /** The tenant's reactors, ordered by name (case-insensitive) then id, with the exact total. */
  list(tenantId: string, query: ReactorListQuery): Promise<Page<ReactorDocument>>;
  /**
   * Every reactor of the formula, in every tenant (an official formula's reactors belong to many), ordered by name
   * (case-insensitive) then id: what a formula update or delete must not break. Never the sealed configuration.
   */
  ofFormula(formulaId: string): Promise<ReactorOfFormulaDocument[]>;
}

/**
 * A proxy as the read model keeps it (the proxy record): its key, destination, configuration and transforms sealed;
 * only its name, application, require_auth and the SHA-256 of its key in the clear. Stored under proxyKey(tenant_id, id).
 */
export type ProxyDocument = ProxyRecord;

/** The same `name` filter and pagination as formulas. */
export type ProxyListQuery = FormulaListQuery;

export interface ProxyReadModel {
  /** The tenant's proxy, or null (another tenant's proxy with this id is as good as absent). */
  get(tenantId: string, id: string): Promise<ProxyDocument | null>;
  /** The tenant's proxies, ordered by name (case-insensitive) then id, with the exact total. */
  list(tenantId: string, query: ProxyListQuery): Promise<Page<ProxyDocument>>;
  /**
   * The proxy whose key hashes to `keyHash` (hex SHA-256), in any tenant, or null: how an invocation finds its proxy.
   * Keys are random, so at most one proxy has a given hash.
   */
  findByKeyHash(keyHash: string): Promise<ProxyDocument | null>;
}

/** The name filter as a predicate over lower-cased names: the reference semantics every adapter must match. */
export function formulaNameMatcher(filter: string | null): (name: string) => boolean {
  if (filter === null || filter === '') return () => true;
  const lower = filter.toLowerCase();
  if (!lower.includes('*')) return (name) => name.toLowerCase().includes(lower);
  const pattern = lower.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*');
  const regex = new RegExp(`^${pattern}$`);
  return (name) => regex.test(name.toLowerCase());
}

/** GET /logs: the tenant's entries matching every filter given (AuditLogFilter: both dates inclusive), a page of them. */
export interface AuditListQuery extends AuditLogFilter {
  page: number;
  size: number;
}

export interface AuditReadModel {
  /** Newest first: created_at descending, then log order descending; with the exact total. Never another tenant's entries. */
  list(tenantId: string, query: AuditListQuery): Promise<Page<AuditEntry>>;
  /**
   * Retention (VAULT_AUDIT_RETENTION_DAYS): drops the access records (reveal, search, use, invoke) created before
   * `cutoff`, of every tenant; entries of writes stay. Returns how many were dropped. The events stay in the log.
   */
  dropAccessRecordsBefore(cutoff: Date): Promise<number>;
}
