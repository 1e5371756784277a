import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { reactorsTable, SqliteReactorReadModel, SqliteReadModel } from '@vault/adapters';
import { describeReactorReadModelContract } from './reactor-read-model.contract';

describeReactorReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-reactors-'));
  const model = SqliteReadModel.open(dir, [reactorsTable]);
  return {
    readModels: { projectionStore: model, reactors: new SqliteReactorReadModel(model) },
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
