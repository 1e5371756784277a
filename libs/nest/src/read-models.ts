// Chooses and opens the read-model adapters (embedded SQLite or Meilisearch) behind the application's ports.
import {
  applicationsProjection,
  auditProjection,
  formulasProjection,
  ProjectionSet,
  proxiesProjection,
  reactorsProjection,
  tenantsProjection,
  tokensProjection,
  usageActiveProjection,
  usageTokensProjection,
  webhooksProjection,
  deliveriesProjection,
} from '@vault/application';
import {
  SqliteApplicationReadModel,
  SqliteFormulaReadModel,
  SqliteProxyReadModel,
  SqliteReactorReadModel,
  SqliteReadModel,
  SqliteTenantReadModel,
  SqliteTokenSearchIndex,
  tokensTable,
  applicationsTable,
  formulasTable,
  reactorsTable,
  proxiesTable,
  tenantsTable,
  auditTable,
  SqliteAuditReadModel,
  SqliteProjectorLease,
  SqliteUsageReportReadModel,
  usageActiveTable,
  usageTokensTable,
  SqliteWebhookReadModel,
  SqliteDeliveryReadModel,
  webhooksTable,
  webhookDeliveriesTable,
} from '@vault/adapters';
import type { VaultConfig } from './config';
import { searchListeners, type ReadModels } from './read-model-set';

// Where the wiring has always found them.
export { searchListeners };
export type { ReadModels, SearchListener } from './read-model-set';

export const allProjections = () =>
  new ProjectionSet([tenantsProjection, applicationsProjection, formulasProjection, tokensProjection, reactorsProjection, proxiesProjection, auditProjection, usageTokensProjection, usageActiveProjection, webhooksProjection, deliveriesProjection]);

export async function openReadModels(config: VaultConfig): Promise<ReadModels> {
  if (config.search !== 'embedded') {
    // Loaded only when configured, so the embedded default never loads the Meilisearch client.
    const meili: typeof import('./meilisearch-read-models') = require('./meilisearch-read-models');
    return meili.openMeilisearchReadModels(config);
  }
  const model = SqliteReadModel.open(config.dataDir, [tenantsTable, applicationsTable, formulasTable, tokensTable, reactorsTable, proxiesTable, auditTable, usageTokensTable, usageActiveTable, webhooksTable, webhookDeliveriesTable]);
  model.removeStaleFiles();
  const searches = searchListeners();
  const tokens = new SqliteTokenSearchIndex(model, { onSearch: searches.notify });
  // The search bitmaps are built before the API listens, so that no search waits for a build (seconds at a million tokens).
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
    proxies: new SqliteProxyReadModel(model),
    tokens,
    audit,
    usage: new SqliteUsageReportReadModel(model),
    webhooks: new SqliteWebhookReadModel(model),
    deliveries: new SqliteDeliveryReadModel(model),
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
