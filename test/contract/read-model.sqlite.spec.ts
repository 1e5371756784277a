import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  SqliteApplicationReadModel,
  SqliteReadModel,
  SqliteTenantReadModel,
  applicationsTable,
  tenantsTable,
} from '@vault/adapters';
import { describeReadModelContract } from './read-model.contract';

// Every open gets its own data dir, so "fresh" means fresh; a rebuild flips the dir's CURRENT pointer.
describeReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-readmodel-'));
  const model = SqliteReadModel.open(dir, [tenantsTable, applicationsTable]);
  return {
    readModels: {
      projectionStore: model,
      rebuildable: model,
      tenants: new SqliteTenantReadModel(model),
      applications: new SqliteApplicationReadModel(model),
    },
    afterSwap: async () => void model.followPointer(),
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
