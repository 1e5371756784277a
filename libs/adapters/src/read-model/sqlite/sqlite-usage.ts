// The usage report in the embedded read model. Its two sets (usage.projection.ts) are tables of one row per document,
// and triggers keep their counts in the same transaction as the rows, whoever writes them: the projector's upserts and
// deletes, a rebuild's multi-row INSERTs on its writer thread, a tenant's purge. The report reads the counters alone:
// one row per token type and one for the month, whatever the number of tokens.
//
//   usage_tokens → usage_type_counts (tenant, type): live tokens and the newest one's creation time (recomputed from
//                  the (tenant, type, created_at) index when a token goes);
//   usage_active → usage_month_counts (tenant, month): distinct tokens active in the month. A row is inserted once per
//                  token and month (its key), so the counter moves once per token. The first row of a new month for a
//                  tenant drops the tenant's earlier months: the report only ever reads the current one.
import type { UsageActiveDocument, UsageCounts, UsageReportReadModel, UsageTokenDocument } from '@vault/application';
import { statement, type SqliteDatabase } from '../../sqlite/open-database';
import type { BulkDocument, BulkWriter, SqliteCollection } from './sqlite-collection';
import type { SqliteReadModel } from './sqlite-read-model';

const TOKENS_SCHEMA = `
CREATE TABLE IF NOT EXISTS usage_tokens (
  id TEXT PRIMARY KEY, revision INTEGER NOT NULL, tenant_id TEXT NOT NULL, type TEXT NOT NULL, created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS usage_tokens_type ON usage_tokens (tenant_id, type, created_at);
CREATE TABLE IF NOT EXISTS usage_type_counts (
  tenant_id TEXT NOT NULL, type TEXT NOT NULL, count INTEGER NOT NULL, last_created_at TEXT NOT NULL,
  PRIMARY KEY (tenant_id, type)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS usage_tokens_inserted AFTER INSERT ON usage_tokens BEGIN
  INSERT INTO usage_type_counts (tenant_id, type, count, last_created_at) VALUES (NEW.tenant_id, NEW.type, 1, NEW.created_at)
  ON CONFLICT (tenant_id, type) DO UPDATE SET count = count + 1, last_created_at = max(last_created_at, excluded.last_created_at);
END;
CREATE TRIGGER IF NOT EXISTS usage_tokens_deleted AFTER DELETE ON usage_tokens BEGIN
  UPDATE usage_type_counts SET count = count - 1,
    last_created_at = coalesce((SELECT max(created_at) FROM usage_tokens WHERE tenant_id = OLD.tenant_id AND type = OLD.type), last_created_at)
  WHERE tenant_id = OLD.tenant_id AND type = OLD.type;
  DELETE FROM usage_type_counts WHERE tenant_id = OLD.tenant_id AND type = OLD.type AND count <= 0;
END;
CREATE TRIGGER IF NOT EXISTS usage_tokens_retyped AFTER UPDATE OF type ON usage_tokens WHEN OLD.type <> NEW.type BEGIN
  UPDATE usage_type_counts SET count = count - 1,
    last_created_at = coalesce((SELECT max(created_at) FROM usage_tokens WHERE tenant_id = OLD.tenant_id AND type = OLD.type), last_created_at)
  WHERE tenant_id = OLD.tenant_id AND type = OLD.type;
  DELETE FROM usage_type_counts WHERE tenant_id = OLD.tenant_id AND type = OLD.type AND count <= 0;
  INSERT INTO usage_type_counts (tenant_id, type, count, last_created_at) VALUES (NEW.tenant_id, NEW.type, 1, NEW.created_at)
  ON CONFLICT (tenant_id, type) DO UPDATE SET count = count + 1, last_created_at = max(last_created_at, excluded.last_created_at);
END;`;

const ACTIVE_SCHEMA = `
CREATE TABLE IF NOT EXISTS usage_active (
  id TEXT PRIMARY KEY, revision INTEGER NOT NULL, tenant_id TEXT NOT NULL, month TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS usage_active_month ON usage_active (tenant_id, month);
CREATE TABLE IF NOT EXISTS usage_month_counts (
  tenant_id TEXT NOT NULL, month TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (tenant_id, month)
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS usage_active_inserted AFTER INSERT ON usage_active BEGIN
  INSERT INTO usage_month_counts (tenant_id, month, count) VALUES (NEW.tenant_id, NEW.month, 1)
  ON CONFLICT (tenant_id, month) DO UPDATE SET count = count + 1;
END;
CREATE TRIGGER IF NOT EXISTS usage_active_deleted AFTER DELETE ON usage_active BEGIN
  UPDATE usage_month_counts SET count = count - 1 WHERE tenant_id = OLD.tenant_id AND month = OLD.month;
END;
CREATE TRIGGER IF NOT EXISTS usage_month_started AFTER INSERT ON usage_month_counts BEGIN
  DELETE FROM usage_month_counts WHERE tenant_id = NEW.tenant_id AND month < NEW.month;
  DELETE FROM usage_active WHERE tenant_id = NEW.tenant_id AND month < NEW.month;
END;`;

type Row = { id: string; revision: number; doc: string };

/** One table of (id, revision, the document's fields as columns), its counters kept by the schema's triggers. */
function usageTable<D extends object>(
  name: string,
  schema: string,
  fields: ReadonlyArray<keyof D & string>,
  counters: string,
): SqliteCollection {
  const columns = ['id', 'revision', ...fields];
  const values = (id: string, revision: bigint, doc: Record<string, unknown>) => [id, Number(revision), ...fields.map((f) => doc[f] as string)];
  const head = `INSERT INTO ${name} (${columns.join(', ')})`;
  return {
    name,
    schema,
    upsert(db, id, revision, doc) {
      statement(
        db,
        `${head} VALUES (${columns.map(() => '?').join(', ')})
         ON CONFLICT (id) DO UPDATE SET ${columns.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`,
      ).run(...values(id, revision, doc));
    },
    remove(db, id) {
      statement(db, `DELETE FROM ${name} WHERE id = ?`).run(id);
    },
    load(db, ids) {
      if (ids.length === 0) return [];
      const rows = statement(db, `SELECT ${columns.join(', ')} FROM ${name} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Array<
        Record<string, string | number>
      >;
      return rows.map((row): Row => ({
        id: row.id as string,
        revision: row.revision as number,
        doc: JSON.stringify(Object.fromEntries(fields.map((f) => [f, row[f]]))),
      }));
    },
    // The counters first: the rows' delete triggers then find no counter to move.
    purgeTenant(db, tenantId) {
      statement(db, `DELETE FROM ${counters} WHERE tenant_id = ?`).run(tenantId);
      statement(db, `DELETE FROM ${name} WHERE tenant_id = ?`).run(tenantId);
    },
    // A rebuild's new documents as multi-row INSERTs: the triggers count them as they would count upserts.
    bulkWriter: (): BulkWriter => ({
      rowsOf: (docs: BulkDocument[]) => [{ head, width: columns.length, values: docs.flatMap(({ id, revision, doc }) => values(id, revision, doc)) }],
    }),
  };
}

export const usageTokensTable = usageTable<UsageTokenDocument>('usage_tokens', TOKENS_SCHEMA, ['tenant_id', 'type', 'created_at'], 'usage_type_counts');
export const usageActiveTable = usageTable<UsageActiveDocument>('usage_active', ACTIVE_SCHEMA, ['tenant_id', 'month'], 'usage_month_counts');

export class SqliteUsageReportReadModel implements UsageReportReadModel {
  constructor(private readonly model: SqliteReadModel) {}

  async usage(tenantId: string, month: string): Promise<UsageCounts> {
    const db: SqliteDatabase = this.model.database;
    const types = statement(db, 'SELECT type, count, last_created_at FROM usage_type_counts WHERE tenant_id = ? AND count > 0 ORDER BY type').all(tenantId) as Array<{
      type: string;
      count: number;
      last_created_at: string;
    }>;
    const active = statement(db, 'SELECT count FROM usage_month_counts WHERE tenant_id = ? AND month = ?').get(tenantId, month) as { count: number } | undefined;
    return {
      metrics_by_type: Object.fromEntries(types.map(({ type, count, last_created_at }) => [type, { count, last_created_at }])),
      monthly_active_tokens: active?.count ?? 0,
    };
  }
}
