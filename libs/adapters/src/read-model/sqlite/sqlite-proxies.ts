// Proxies in the embedded read model: one row per proxy of a tenant, keyed by proxyKey(tenant, id). The document is the
// proxy record, whose key, destination, configuration and transforms stay sealed; the columns are what lists and the
// invocation's lookup by key hash filter on.
import { proxyKey } from '@vault/domain';
import type { Page, ProxyDocument, ProxyListQuery, ProxyReadModel } from '@vault/application';
import { statement } from '../../sqlite/open-database';
import { documentTable } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

export const proxiesTable = documentTable(
  'proxies',
  {
    tenant_id: { type: 'TEXT', value: (d) => d.tenant_id as string },
    // Lower-cased here (JavaScript's full Unicode rules), not by SQLite's ASCII-only lower(), as for formulas.
    name_lower: { type: 'TEXT', value: (d) => (d.name as string).toLowerCase() },
    proxy_id: { type: 'TEXT', value: (d) => d.id as string },
    key_hash: { type: 'TEXT', value: (d) => d.key_hash as string },
  },
  [
    'CREATE INDEX IF NOT EXISTS proxies_tenant_name ON proxies (tenant_id, name_lower, proxy_id)',
    // Not UNIQUE: keys are random, and a projector must never stall on a constraint the log cannot break anyway.
    'CREATE INDEX IF NOT EXISTS proxies_key_hash ON proxies (key_hash)',
  ],
);

/** The name filter of a list request as a LIKE pattern: `*` → any run; no `*` → contains (as sqlite-formulas.ts). */
function likePattern(filter: string): string {
  const escaped = filter.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return escaped.includes('*') ? escaped.replace(/\*/g, '%') : `%${escaped}%`;
}

export class SqliteProxyReadModel implements ProxyReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async get(tenantId: string, id: string): Promise<ProxyDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM proxies WHERE id = ? AND tenant_id = ?').get(proxyKey(tenantId, id), tenantId) as
      | { doc: string }
      | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async list(tenantId: string, { name, page, size }: ProxyListQuery): Promise<Page<ProxyDocument>> {
    const db = this.model.database;
    const where = `tenant_id = ?${name ? " AND name_lower LIKE ? ESCAPE '\\'" : ''}`;
    const params: unknown[] = name ? [tenantId, likePattern(name)] : [tenantId];
    const total = (statement(db, `SELECT COUNT(*) AS n FROM proxies WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = statement(db, `SELECT doc FROM proxies WHERE ${where} ORDER BY name_lower, proxy_id LIMIT ? OFFSET ?`)
      .all(...params, size, (page - 1) * size) as Array<{ doc: string }>;
    return { total, items: rows.map((r) => JSON.parse(r.doc)) };
  }

  async findByKeyHash(keyHash: string): Promise<ProxyDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM proxies WHERE key_hash = ?').get(keyHash) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }
}
