import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteTokenSearchIndex, tokensTable } from '@vault/adapters';
import { describeTokenSearchContract } from './token-search.contract';

// Twice: with the adaptive plan (selective terms drive the query from token_terms), and with every term treated as
// broad (checked row by row with EXISTS), so both SQL forms the compiler emits are held to the same corpus.
for (const [name, selectiveLimit] of [
  ['Embedded SQLite', undefined],
  ['Embedded SQLite, every term broad', 0],
] as const) {
  describeTokenSearchContract(
    name,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vault-tokens-'));
      const model = SqliteReadModel.open(dir, [tokensTable]);
      return {
        index: { projectionStore: model, tokens: new SqliteTokenSearchIndex(model, selectiveLimit) },
        dispose: async () => {
          await model.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    { propertyRuns: 150 },
  );
}
