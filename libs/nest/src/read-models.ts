// Chooses and opens the read-model adapters (embedded SQLite or Meilisearch) behind the application's ports.
import {
  ApplicationReadModel,
  FormulaReadModel,
  formulasProjection,
  TokenSearchIndex,
  tokensProjection,
  ProjectionSet,
  ProjectionStore,
  ReactorReadModel,
  reactorsProjection,
  RebuildableReadModel,
  TenantReadModel,
  applicationsProjection,
  tenantsProjection,
  AuditReadModel,
  auditProjection,
  ProjectorLease,
} from '@vault/application';
import {
  SqliteApplicationReadModel,
  SqliteFormulaReadModel,
  SqliteReactorReadModel,
  SqliteReadModel,
  SqliteTenantReadModel,
  SqliteTokenSearchIndex,
  tokensTable,
  applicationsTable,
  formulasTable,
  reactorsTable,
  tenantsTable,
  auditTable,
  SqliteAuditReadModel,
  SqliteProjectorLease,
} from '@vault/adapters';
import type { VaultConfig } from './config';

export interface ReadModels {
  projectionStore: ProjectionStore;
  rebuildable: RebuildableReadModel;
  tenants: TenantReadModel;
  applications: ApplicationReadModel;
  formulas: FormulaReadModel;
  reactors: ReactorReadModel;
  tokens: TokenSearchIndex;
  /** GET /logs and the audit retention sweep. */
  audit: AuditReadModel;
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

export const allProjections = () =>
  new ProjectionSet([tenantsProjection, applicationsProjection, formulasProjection, tokensProjection, reactorsProjection, auditProjection]);

export async function openReadModels(config: VaultConfig): Promise<ReadModels> {
  if (config.search !== 'embedded') {
    // Loaded only when configured, so the embedded default never loads the Meilisearch client.
    const meili: typeof import('./meilisearch-read-models') = require('./meilisearch-read-models');
    return meili.openMeilisearchReadModels(config);
  }
  const model = SqliteReadModel.open(config.dataDir, [tenantsTable, applicationsTable, formulasTable, tokensTable, reactorsTable, auditTable]);
  model.removeStaleFiles();
  const searches = searchListeners();
  const tokens = new SqliteTokenSearchIndex(model, { onSearch: searches.notify });
  // The search bitmaps are built before the API listens (README "Performance": start-up at 1M tokens).
  tokens.warmUp();
  const audit = new SqliteAuditReadModel(model);
  const projectorLease = SqliteProjectorLease.open(config.dataDir);
  return {
    projectionStore: model,
    rebuildable: model,
    tenants: new SqliteTenantReadModel(model),
    applications: new SqliteApplicationReadModel(model),
    formulas: new SqliteFormulaReadModel(model),
    reactors: new SqliteReactorReadModel(model),
    tokens,
    audit,
    onSwap(listener) {
      model.watchPointer(() => listener(async () => void model.followPointer()));
    },
    onSearch: searches.add,
    projectorLease,
    close: async () => {
      await tokens.close();
      await audit.close();
      await model.close();
      projectorLease.close();
    },
  };
}
