import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { proxiesTable, SqliteProxyReadModel, SqliteReadModel, tenantsTable } from '@vault/adapters';
import { describeProxyReadModelContract } from './proxy-read-model.contract';

describeProxyReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-proxies-'));
  const model = SqliteReadModel.open(dir, [tenantsTable, proxiesTable]);
  return {
    readModels: { projectionStore: model, proxies: new SqliteProxyReadModel(model) },
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
