// What opening the read models gives the wiring, whichever adapter serves them (read-models.ts chooses).
import type {
  ApplicationReadModel,
  AuditReadModel,
  FormulaReadModel,
  ProjectionStore,
  ProjectorLease,
  ProxyReadModel,
  ReactorReadModel,
  RebuildableReadModel,
  TenantReadModel,
  TokenSearchIndex,
  UsageReportReadModel,
  WebhookReadModel,
  DeliveryReadModel,
} from '@vault/application';

export interface ReadModels {
  projectionStore: ProjectionStore;
  rebuildable: RebuildableReadModel;
  tenants: TenantReadModel;
  applications: ApplicationReadModel;
  formulas: FormulaReadModel;
  reactors: ReactorReadModel;
  proxies: ProxyReadModel;
  tokens: TokenSearchIndex;
  /** GET /logs and the audit retention sweep. */
  audit: AuditReadModel;
  /** GET /tenants/self/reports/usage. */
  usage: UsageReportReadModel;
  /** Webhooks, and their deliveries' states. */
  webhooks: WebhookReadModel;
  deliveries: DeliveryReadModel;
  /** Calls back after another process swapped in a rebuilt read model and this one has switched to it. */
  onSwap?(listener: (reopen: () => Promise<void>) => void): void;
  /** Calls back after each token search with the plan the adapter chose and how long it ran (the API's metrics). */
  onSearch(listener: SearchListener): void;
  /** Elects the one process of a data dir that projects (the embedded read model); absent: every inline process projects. */
  projectorLease?: ProjectorLease;
  close(): Promise<void>;
}

/** `plan` is one of a few fixed names per adapter (SqliteSearchPlan, or `meilisearch`); never a query or a value. */
export type SearchListener = (plan: string, seconds: number) => void;

/** The listeners of onSearch, and the one callback an adapter is given at construction that tells them all. */
export function searchListeners(): { add(listener: SearchListener): void; notify: SearchListener } {
  const listeners: SearchListener[] = [];
  return {
    add: (listener) => void listeners.push(listener),
    notify: (plan, seconds) => listeners.forEach((listener) => listener(plan, seconds)),
  };
}
