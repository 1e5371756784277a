import { randomBytes } from 'node:crypto';
import { Meilisearch } from 'meilisearch';
import {
  MeiliApplicationReadModel,
  MeiliReadModel,
  MeiliTenantReadModel,
  meiliApplicationsCollection,
  meiliTenantsCollection,
} from '@vault/adapters/meilisearch';
import { describeReadModelContract } from './read-model.contract';

// A live server keeps its indexes between runs: every open gets its own index prefix, and dispose deletes its indexes
// (rebuild leftovers included).
const url = process.env.MEILI_URL;

if (url) {
  const apiKey = process.env.MEILI_MASTER_KEY;
  const run = `vault_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  let opened = 0;

  describeReadModelContract('Meilisearch', async () => {
    const prefix = `${run}_${++opened}`;
    const model = new MeiliReadModel({ host: url, apiKey, indexPrefix: prefix }, [meiliTenantsCollection, meiliApplicationsCollection]);
    await model.ensureSetup();
    return {
      readModels: {
        projectionStore: model,
        rebuildable: model,
        tenants: new MeiliTenantReadModel(model),
        applications: new MeiliApplicationReadModel(model),
      },
      dispose: () => deleteIndexesStartingWith(new Meilisearch({ host: url, apiKey }), `${prefix}_`),
    };
  });
} else {
  describe.skip('Meilisearch read model contract (skipped: set MEILI_URL, e.g. http://localhost:7700, and MEILI_MASTER_KEY to run it against a live server)', () => {
    it('needs MEILI_URL', () => undefined);
  });
}

async function deleteIndexesStartingWith(client: Meilisearch, prefix: string): Promise<void> {
  const { results } = await client.getRawIndexes({ limit: 1000 });
  const mine = results.filter((index) => index.uid.startsWith(prefix));
  await Promise.all(mine.map((index) => client.deleteIndex(index.uid).waitTask({ timeout: 30_000 })));
}
