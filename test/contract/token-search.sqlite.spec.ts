import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteTokenSearchIndex, tokensTable } from '@vault/adapters';
import { describeTokenSearchContract } from './token-search.contract';

// Twice: with the adaptive plan (selective terms drive the query from token_terms, small counts on the event loop),
// and with every term treated as broad (checked row by row with EXISTS) and every count on the worker thread, so both
// SQL forms the compiler emits and both ways of counting are held to the same corpus.
for (const [name, limit] of [
  ['Embedded SQLite', undefined],
  ['Embedded SQLite, every term broad, counts on the worker thread', 0],
] as const) {
  describeTokenSearchContract(
    name,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vault-tokens-'));
      const model = SqliteReadModel.open(dir, [tokensTable]);
      const tokens = new SqliteTokenSearchIndex(model, limit, limit);
      return {
        index: { projectionStore: model, tokens },
        dispose: async () => {
          await tokens.close();
          await model.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    { propertyRuns: 150 },
  );
}
