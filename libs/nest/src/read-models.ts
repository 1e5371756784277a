// Chooses and opens the read-model adapters (embedded SQLite or Meilisearch) behind the application's ports.
import {
  ApplicationReadModel,
  FormulaReadModel,
  formulasProjection,
  TokenSearchIndex,
  tokensProjection,
  ProjectionSet,
  ProjectionStore,
  RebuildableReadModel,
  TenantReadModel,
  applicationsProjection,
  tenantsProjection,
} from '@vault/application';
import {
  SqliteApplicationReadModel,
  SqliteFormulaReadModel,
  SqliteReadModel,
  SqliteTenantReadModel,
  SqliteTokenSearchIndex,
  tokensTable,
  applicationsTable,
  formulasTable,
  tenantsTable,
} from '@vault/adapters';
import type { VaultConfig } from './config';

export interface ReadModels {
  projectionStore: ProjectionStore;
  rebuildable: RebuildableReadModel;
  tenants: TenantReadModel;
  applications: ApplicationReadModel;
  formulas: FormulaReadModel;
  tokens: TokenSearchIndex;
  /** Calls back after another process swapped in a rebuilt read model and this one has switched to it. */
  onSwap?(listener: (reopen: () => Promise<void>) => void): void;
  close(): Promise<void>;
}


export const allProjections = () => new ProjectionSet([tenantsProjection, applicationsProjection, formulasProjection, tokensProjection]);

export async function openReadModels(config: VaultConfig): Promise<ReadModels> {
  if (config.search !== 'embedded') {
    // Loaded only when configured, so the embedded default never loads the Meilisearch client.
    const meili: typeof import('./meilisearch-read-models') = require('./meilisearch-read-models');
    return meili.openMeilisearchReadModels(config);
  }
  const model = SqliteReadModel.open(config.dataDir, [tenantsTable, applicationsTable, formulasTable, tokensTable]);
  model.removeStaleFiles();
  const tokens = new SqliteTokenSearchIndex(model);
  return {
    projectionStore: model,
    rebuildable: model,
    tenants: new SqliteTenantReadModel(model),
    applications: new SqliteApplicationReadModel(model),
    formulas: new SqliteFormulaReadModel(model),
    tokens,
    onSwap(listener) {
      model.watchPointer(() => listener(async () => void model.followPointer()));
    },
    close: async () => {
      await tokens.close();
      await model.close();
    },
  };
}
