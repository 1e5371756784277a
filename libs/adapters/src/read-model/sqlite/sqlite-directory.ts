// Tenants and applications in the embedded read model, and the queries the API asks of them.
import { statement } from '../../sqlite/open-database';
import type {
  ApplicationDocument,
  ApplicationReadModel,
  Page,
  PageRequest,
  TenantDocument,
  TenantReadModel,
} from '@vault/application';
import { documentTable } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

export const tenantsTable = documentTable('tenants', {
  name: { type: 'TEXT', value: (d) => d.name as string },
});

export const applicationsTable = documentTable(
  'applications',
  {
    tenant_id: { type: 'TEXT', value: (d) => d.tenant_id as string },
    key_hash: { type: 'TEXT', value: (d) => d.key_hash as string },
    created_at: { type: 'TEXT', value: (d) => d.created_at as string },
  },
  [
    'CREATE INDEX IF NOT EXISTS applications_key_hash ON applications (key_hash)',
    'CREATE INDEX IF NOT EXISTS applications_tenant_created ON applications (tenant_id, created_at DESC, id)',
  ],
);

export class SqliteTenantReadModel implements TenantReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async get(id: string): Promise<TenantDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM tenants WHERE id = ?').get(id) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async count(): Promise<number> {
    return (statement(this.model.database, 'SELECT COUNT(*) AS n FROM tenants').get() as { n: number }).n;
  }
}

export class SqliteApplicationReadModel implements ApplicationReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  /**
   * Moves with every application change, by this process's projector or another's: the authenticator caches key
   * lookups under it. (A key whose tenant does not exist yet is never cached, so tenant changes need not move it.)
   */
  changeStamp(): number {
    return this.model.changeStamp('applications');
  }

  async findByKeyHash(keyHash: string): Promise<ApplicationDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM applications WHERE key_hash = ?').get(keyHash) as
      | { doc: string }
      | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async get(tenantId: string, id: string): Promise<ApplicationDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM applications WHERE id = ? AND tenant_id = ?')
      .get(id, tenantId) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async list(tenantId: string, { page, size }: PageRequest): Promise<Page<ApplicationDocument>> {
    const db = this.model.database;
    const total = (statement(db, 'SELECT COUNT(*) AS n FROM applications WHERE tenant_id = ?').get(tenantId) as { n: number }).n;
    const rows = statement(db, 'SELECT doc FROM applications WHERE tenant_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?')
      .all(tenantId, size, (page - 1) * size) as Array<{ doc: string }>;
    return { total, items: rows.map((r) => JSON.parse(r.doc)) };
  }
}
