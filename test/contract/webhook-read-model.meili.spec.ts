import { randomBytes } from 'node:crypto';
import { Meilisearch } from 'meilisearch';
import {
  meiliDeliveriesCollection,
  MeiliDeliveryReadModel,
  MeiliReadModel,
  meiliTenantsCollection,
  MeiliWebhookReadModel,
  meiliWebhooksCollection,
} from '@vault/adapters/meilisearch';
import { describeWebhookReadModelContract } from './webhook-read-model.contract';

// A live server keeps its indexes between runs: every run gets its own index prefix, and dispose deletes its indexes.
const url = process.env.MEILI_URL;

if (url) {
  const apiKey = process.env.MEILI_MASTER_KEY;
  const prefix = `vault_webhooks_test_${Date.now()}_${randomBytes(3).toString('hex')}`;

  describeWebhookReadModelContract('Meilisearch', async () => {
    const model = new MeiliReadModel({ host: url, apiKey, indexPrefix: prefix }, [meiliTenantsCollection, meiliWebhooksCollection, meiliDeliveriesCollection]);
    await model.ensureSetup();
    return {
      readModels: { projectionStore: model, webhooks: new MeiliWebhookReadModel(model), deliveries: new MeiliDeliveryReadModel(model) },
      dispose: () => deleteIndexesStartingWith(new Meilisearch({ host: url, apiKey }), `${prefix}_`),
    };
  });
} else {
  describe.skip('Meilisearch webhook read model contract (skipped: set MEILI_URL to run it against a live server)', () => {
    it('needs MEILI_URL', () => undefined);
  });
}

async function deleteIndexesStartingWith(client: Meilisearch, prefix: string): Promise<void> {
  const { results } = await client.getRawIndexes({ limit: 1000 });
  const mine = results.filter((index) => index.uid.startsWith(prefix));
  await Promise.all(mine.map((index) => client.deleteIndex(index.uid).waitTask({ timeout: 30_000 })));
}
