// How one projection collection is kept in SQLite: a table of (id, revision, doc) plus the columns its queries need.
import { statement, type SqliteDatabase } from '../../sqlite/open-database';
import type { BulkRows } from './bulk-writer-thread';

export interface SqliteCollection {
  name: string;
  /** DDL run on every open (IF NOT EXISTS): the tables and the indexes that writing needs. */
  schema: string;
  /** Indexes only queries need: a rebuild creates them after the replay, every other open right away. */
  deferredIndexes?: string;
  /** Runs on a rebuild's fresh file before anything is written to it. */
  beforeRebuild?(db: SqliteDatabase): void;
  /** Runs on a rebuilt file after its deferred indexes, before it is swapped in (work no process should do later). */
  afterRebuild?(db: SqliteDatabase): void;
  upsert(db: SqliteDatabase, id: string, revision: bigint, doc: Record<string, unknown>): void;
  remove(db: SqliteDatabase, id: string): void;
  load(db: SqliteDatabase, ids: string[]): Array<{ id: string; revision: number; doc: string }>;
  /** Removes every document of a deleted tenant; absent for collections that keep no tenant's documents (tenants). */
  purgeTenant?(db: SqliteDatabase, tenantId: string): void;
  /**
   * Its rows hold values computed from token data (keyed hashes), which must not outlive the token: a commit that
   * removes one (or purges a tenant) truncates the WAL, whose old page images would otherwise keep them.
   */
  derivedFromData?: boolean;
  /**
   * Rows for documents that are certainly not in the file yet (a rebuild's fresh file): exactly the rows `upsert` would
   * write for them one by one, as multi-row INSERTs. Absent: the rebuild upserts them one by one.
   */
  bulkWriter?(db: SqliteDatabase): BulkWriter;
}

/** A document for a BulkWriter: `id` is the projection's document key, as `upsert` takes it. */
export interface BulkDocument {
  id: string;
  revision: bigint;
  doc: Record<string, unknown>;
}

/**
 * Makes the INSERTs for new documents, in order. Made from the file as it stands (e.g. the next rowid); every other
 * write to the file (an upsert, a remove) needs a new one.
 */
export interface BulkWriter {
  rowsOf(docs: BulkDocument[]): BulkRows[];
}

type ColumnValue = string | number | null;

/** A collection stored as one table: `columns` are extracted from the document for indexes and filters. */
export function documentTable(
  name: string,
  columns: Record<string, { type: 'TEXT' | 'INTEGER'; value: (doc: Record<string, unknown>) => ColumnValue }>,
  indexes: string[] = [],
): SqliteCollection {
  const names = Object.keys(columns);
  const schema = [
    `CREATE TABLE IF NOT EXISTS ${name} (id TEXT PRIMARY KEY, revision INTEGER NOT NULL, doc TEXT NOT NULL${names
      .map((c) => `, ${c} ${columns[c].type}`)
      .join('')});`,
    ...indexes.map((ddl) => `${ddl};`),
  ].join('\n');
  const statements = new WeakMap<SqliteDatabase, { upsert: any; remove: any }>();
  const prepared = (db: SqliteDatabase) => {
    let s = statements.get(db);
    if (!s) {
      const all = ['id', 'revision', 'doc', ...names];
      s = {
        upsert: db.prepare(
          `INSERT INTO ${name} (${all.join(', ')}) VALUES (${all.map(() => '?').join(', ')})
           ON CONFLICT (id) DO UPDATE SET ${all.slice(1).map((c) => `${c} = excluded.${c}`).join(', ')}`,
        ),
        remove: db.prepare(`DELETE FROM ${name} WHERE id = ?`),
      };
      statements.set(db, s);
    }
    return s;
  };
  return {
    name,
    schema,
    upsert(db, id, revision, doc) {
      prepared(db).upsert.run(id, Number(revision), JSON.stringify(doc), ...names.map((c) => columns[c].value(doc)));
    },
    remove(db, id) {
      prepared(db).remove.run(id);
    },
    load(db, ids) {
      if (ids.length === 0) return [];
      return statement(db, `SELECT id, revision, doc FROM ${name} WHERE id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as Array<{ id: string; revision: number; doc: string }>;
    },
    ...(names.includes('tenant_id') ? { purgeTenant: (db: SqliteDatabase, tenantId: string) => void statement(db, `DELETE FROM ${name} WHERE tenant_id = ?`).run(tenantId) } : {}),
  };
}
