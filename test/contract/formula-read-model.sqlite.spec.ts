import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formulasTable, SqliteFormulaReadModel, SqliteReadModel } from '@vault/adapters';
import { describeFormulaReadModelContract } from './formula-read-model.contract';

describeFormulaReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-formulas-'));
  const model = SqliteReadModel.open(dir, [formulasTable]);
  return {
    readModels: { projectionStore: model, formulas: new SqliteFormulaReadModel(model) },
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
