import { randomBytes } from 'node:crypto';
import { Meilisearch } from 'meilisearch';
import { MeiliReadModel, MeiliTokenSearchIndex, meiliTokensCollection } from '@vault/adapters/meilisearch';
import { describeTokenSearchContract } from './token-search.contract';

// A live server keeps its indexes between runs: every run gets its own index prefix, and dispose deletes its indexes.
// Each property run indexes a batch and waits for its task, so the run count is lower than the embedded adapter's.
const url = process.env.MEILI_URL;

if (url) {
  const apiKey = process.env.MEILI_MASTER_KEY;
  const prefix = `vault_tokens_test_${Date.now()}_${randomBytes(3).toString('hex')}`;

  describeTokenSearchContract(
    'Meilisearch',
    async () => {
      const model = new MeiliReadModel({ host: url, apiKey, indexPrefix: prefix }, [meiliTokensCollection]);
      await model.ensureSetup();
      return {
        index: { projectionStore: model, tokens: new MeiliTokenSearchIndex(model) },
        dispose: () => deleteIndexesStartingWith(new Meilisearch({ host: url, apiKey }), `${prefix}_`),
      };
    },
    { propertyRuns: 15 },
  );
} else {
  describe.skip('Meilisearch token search contract (skipped: set MEILI_URL to run it against a live server)', () => {
    it('needs MEILI_URL', () => undefined);
  });
}

async function deleteIndexesStartingWith(client: Meilisearch, prefix: string): Promise<void> {
  const { results } = await client.getRawIndexes({ limit: 1000 });
  const mine = results.filter((index) => index.uid.startsWith(prefix));
  await Promise.all(mine.map((index) => client.deleteIndex(index.uid).waitTask({ timeout: 30_000 })));
}
