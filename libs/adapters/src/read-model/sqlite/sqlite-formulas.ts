// Reactor formulas in the embedded read model: official (tenant_id NULL) plus each tenant's private ones.
import { statement } from '../../sqlite/open-database';
import type { FormulaDocument, FormulaListQuery, FormulaReadModel, Page } from '@vault/application';
import { documentTable, type SqliteCollection } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

/**
 * A private formula's code may hold upstream API keys, and the read model keeps it in plaintext only while the formula
 * exists: secure_delete clears the file of a removed one, and a commit that removes one (or purges its tenant) empties
 * the WAL, whose old page images would otherwise keep it, as for tokens' derived values.
 */
export const formulasTable: SqliteCollection = {
  ...documentTable(
    'formulas',
    {
      tenant_id: { type: 'TEXT', value: (d) => (d.tenant_id as string | null) ?? null },
      // Lower-cased here (JavaScript's full Unicode rules), not by SQLite's ASCII-only lower().
      name_lower: { type: 'TEXT', value: (d) => (d.name as string).toLowerCase() },
    },
    ['CREATE INDEX IF NOT EXISTS formulas_tenant_name ON formulas (tenant_id, name_lower, id)'],
  ),
  derivedFromData: true,
};

/** The name filter of a list request as a LIKE pattern: `*` → any run; no `*` → contains. */
function likePattern(filter: string): string {
  const escaped = filter.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return escaped.includes('*') ? escaped.replace(/\*/g, '%') : `%${escaped}%`;
}

export class SqliteFormulaReadModel implements FormulaReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async get(tenantId: string, id: string): Promise<FormulaDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM formulas WHERE id = ? AND (tenant_id IS NULL OR tenant_id = ?)')
      .get(id, tenantId) as { doc: string } | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async list(tenantId: string, { name, page, size }: FormulaListQuery): Promise<Page<FormulaDocument>> {
    const db = this.model.database;
    const where = `(tenant_id IS NULL OR tenant_id = ?)${name ? " AND name_lower LIKE ? ESCAPE '\\'" : ''}`;
    const params: unknown[] = name ? [tenantId, likePattern(name)] : [tenantId];
    const total = (statement(db, `SELECT COUNT(*) AS n FROM formulas WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = statement(db, `SELECT doc FROM formulas WHERE ${where} ORDER BY name_lower, id LIMIT ? OFFSET ?`)
      .all(...params, size, (page - 1) * size) as Array<{ doc: string }>;
    return { total, items: rows.map((r) => JSON.parse(r.doc)) };
  }
}
