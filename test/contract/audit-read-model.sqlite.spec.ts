import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditTable, SqliteAuditReadModel, SqliteReadModel, tenantsTable } from '@vault/adapters';
import { describeAuditReadModelContract } from './audit-read-model.contract';

describeAuditReadModelContract('Embedded SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-audit-'));
  const model = SqliteReadModel.open(dir, [tenantsTable, auditTable]);
  return {
    readModels: { projectionStore: model, audit: new SqliteAuditReadModel(model) },
    dispose: async () => {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
