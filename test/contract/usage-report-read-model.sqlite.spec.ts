import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteReadModel, SqliteUsageReportReadModel, tenantsTable, usageActiveTable, usageTokensTable } from '@vault/adapters';
import { describeUsageReportReadModelContract } from './usage-report-read-model.contract';

describeUsageReportReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-usage-'));
  const model = SqliteReadModel.open(dir, [tenantsTable, usageTokensTable, usageActiveTable]);
  return {
    readModels: {
      projectionStore: model,
      rebuildable: model,
      usage: new SqliteUsageReportReadModel(model),
      followSwap: async () => void model.followPointer(),
    },
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
