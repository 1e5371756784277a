import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditTable, SqliteAuditReadModel, SqliteReadModel, tenantsTable } from '@vault/adapters';
import { describeAuditReadModelContract } from './audit-read-model.contract';

/** inlineLimit: 0 reads every list on the worker thread, as a long log does (a filter along 900,000 entries). */
for (const [name, inlineLimit] of [
  ['Embedded SQLite', undefined],
  ['Embedded SQLite, every list read on the worker thread', 0],
] as const) {
  describeAuditReadModelContract(name, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-audit-'));
    const model = SqliteReadModel.open(dir, [tenantsTable, auditTable]);
    const audit = new SqliteAuditReadModel(model, inlineLimit);
    return {
      readModels: { projectionStore: model, audit },
      dispose: async () => {
        await audit.close();
        await model.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}
