// Reactors in the embedded read model: one row per reactor of a tenant, keyed by reactorKey(tenant, id). The document
// is the reactor record, whose configuration stays sealed; the columns are what lists and the formula check filter on.
import { reactorKey } from '@vault/domain';
import type { Page, ReactorDocument, ReactorListQuery, ReactorOfFormulaDocument, ReactorReadModel } from '@vault/application';
import { statement } from '../../sqlite/open-database';
import { documentTable } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

export const reactorsTable = documentTable(
  'reactors',
  {
    tenant_id: { type: 'TEXT', value: (d) => d.tenant_id as string },
    // Lower-cased here (JavaScript's full Unicode rules), not by SQLite's ASCII-only lower(), as for formulas.
    name_lower: { type: 'TEXT', value: (d) => (d.name as string).toLowerCase() },
    reactor_id: { type: 'TEXT', value: (d) => d.id as string },
    formula_id: { type: 'TEXT', value: (d) => d.formula_id as string },
  },
  [
    'CREATE INDEX IF NOT EXISTS reactors_tenant_name ON reactors (tenant_id, name_lower, reactor_id)',
    'CREATE INDEX IF NOT EXISTS reactors_formula ON reactors (formula_id, name_lower, reactor_id)',
  ],
);

/** The name filter of a list request as a LIKE pattern: `*` → any run; no `*` → contains (as sqlite-formulas.ts). */
function likePattern(filter: string): string {
  const escaped = filter.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);
  return escaped.includes('*') ? escaped.replace(/\*/g, '%') : `%${escaped}%`;
}

export class SqliteReactorReadModel implements ReactorReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async get(tenantId: string, id: string): Promise<ReactorDocument | null> {
    const row = statement(this.model.database, 'SELECT doc FROM reactors WHERE id = ? AND tenant_id = ?').get(reactorKey(tenantId, id), tenantId) as
      | { doc: string }
      | undefined;
    return row ? JSON.parse(row.doc) : null;
  }

  async list(tenantId: string, { name, page, size }: ReactorListQuery): Promise<Page<ReactorDocument>> {
    const db = this.model.database;
    const where = `tenant_id = ?${name ? " AND name_lower LIKE ? ESCAPE '\\'" : ''}`;
    const params: unknown[] = name ? [tenantId, likePattern(name)] : [tenantId];
    const total = (statement(db, `SELECT COUNT(*) AS n FROM reactors WHERE ${where}`).get(...params) as { n: number }).n;
    const rows = statement(db, `SELECT doc FROM reactors WHERE ${where} ORDER BY name_lower, reactor_id LIMIT ? OFFSET ?`)
      .all(...params, size, (page - 1) * size) as Array<{ doc: string }>;
    return { total, items: rows.map((r) => JSON.parse(r.doc)) };
  }

  async ofFormula(formulaId: string): Promise<ReactorOfFormulaDocument[]> {
    const rows = statement(this.model.database, 'SELECT doc FROM reactors WHERE formula_id = ? ORDER BY name_lower, reactor_id').all(formulaId) as Array<{
      doc: string;
    }>;
    return rows.map((row) => {
      const { id, tenant_id, name, configuration_shape } = JSON.parse(row.doc) as ReactorDocument;
      return { id, tenant_id, name, configuration_shape };
    });
  }
}
