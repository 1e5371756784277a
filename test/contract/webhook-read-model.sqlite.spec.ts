import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDeliveryReadModel, SqliteReadModel, SqliteWebhookReadModel, tenantsTable, webhookDeliveriesTable, webhooksTable } from '@vault/adapters';
import { describeWebhookReadModelContract } from './webhook-read-model.contract';

describeWebhookReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-webhooks-'));
  const model = SqliteReadModel.open(dir, [tenantsTable, webhooksTable, webhookDeliveriesTable]);
  return {
    readModels: { projectionStore: model, webhooks: new SqliteWebhookReadModel(model), deliveries: new SqliteDeliveryReadModel(model) },
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
