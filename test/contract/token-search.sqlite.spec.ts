import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteTokenSearchIndex, tokensTable } from '@vault/adapters';
import { describeTokenSearchContract } from './token-search.contract';

describeTokenSearchContract(
  'Embedded SQLite',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-tokens-'));
    const model = SqliteReadModel.open(dir, [tokensTable]);
    return {
      index: { projectionStore: model, tokens: new SqliteTokenSearchIndex(model) },
      dispose: async () => {
        await model.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { propertyRuns: 150 },
);
