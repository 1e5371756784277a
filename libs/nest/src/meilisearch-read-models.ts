// The read models on Meilisearch (VAULT_SEARCH is its URL). Loaded only when configured, so the embedded setup
// never touches the client.
import {
  MeiliApplicationReadModel,
  MeiliFormulaReadModel,
  MeiliProxyReadModel,
  MeiliReactorReadModel,
  MeiliReadModel,
  MeiliTenantReadModel,
  MeiliTokenSearchIndex,
  meiliApplicationsCollection,
  meiliFormulasCollection,
  meiliProxiesCollection,
  meiliReactorsCollection,
  meiliTenantsCollection,
  meiliTokensCollection,
  MeiliAuditReadModel,
  meiliAuditCollection,
  MeiliUsageReportReadModel,
  meiliUsageActiveCollection,
  meiliUsageTokensCollection,
  MeiliWebhookReadModel,
  MeiliDeliveryReadModel,
  meiliWebhooksCollection,
  meiliDeliveriesCollection,
} from '@vault/adapters/meilisearch';
import type { VaultConfig } from './config';
import { searchListeners, type ReadModels } from './read-model-set';

export async function openMeilisearchReadModels(config: VaultConfig): Promise<ReadModels> {
  const model = new MeiliReadModel({ host: config.search, apiKey: config.meiliMasterKey }, [
    meiliTenantsCollection,
    meiliApplicationsCollection,
    meiliFormulasCollection,
    meiliTokensCollection,
    meiliReactorsCollection,
    meiliProxiesCollection,
    meiliAuditCollection,
    meiliUsageTokensCollection,
    meiliUsageActiveCollection,
    meiliWebhooksCollection,
    meiliDeliveriesCollection,
  ]);
  // Refuses a server older than MINIMUM_MEILISEARCH_VERSION (the error names both versions and reaches main(), which
  // exits 1), then creates missing indexes and reapplies settings (idempotent), so a fresh server works on first start.
  await model.ensureSetup();
  const searches = searchListeners();
  return {
    projectionStore: model,
    rebuildable: model,
    tenants: new MeiliTenantReadModel(model),
    applications: new MeiliApplicationReadModel(model),
    formulas: new MeiliFormulaReadModel(model),
    reactors: new MeiliReactorReadModel(model),
    proxies: new MeiliProxyReadModel(model),
    tokens: new MeiliTokenSearchIndex(model, searches.notify),
    audit: new MeiliAuditReadModel(model),
    usage: new MeiliUsageReportReadModel(model),
    webhooks: new MeiliWebhookReadModel(model),
    deliveries: new MeiliDeliveryReadModel(model),
    onSearch: searches.add,
    // No onSwap: a swap replaces the contents under the same index uids, for every process at once.
    // The client keeps no connection open, so there is nothing to close.
    close: async () => undefined,
  };
}
