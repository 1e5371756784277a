// Multi-row INSERTs for bulk loading (a rebuild's fresh file): one statement binds up to MAX_PARAMETERS values, so
// SQLite parses and steps once per chunk of rows instead of once per row.
import type Database from 'better-sqlite3';
import type { SqliteDatabase } from '../../sqlite/open-database';

/** Values bound per statement: well under SQLite's limit (32,766), and large enough that the per-call cost vanishes. */
const MAX_PARAMETERS = 960;

const statements = new WeakMap<SqliteDatabase, Map<string, Database.Statement>>();

function insertOf(db: SqliteDatabase, head: string, width: number, rows: number): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  const key = `${head}\u0000${rows}`;
  let prepared = cache.get(key);
  if (!prepared) {
    const row = `(${new Array(width).fill('?').join(', ')})`;
    prepared = db.prepare(`${head} VALUES ${new Array(rows).fill(row).join(', ')}`);
    cache.set(key, prepared);
  }
  return prepared;
}

/**
 * Inserts rows of `width` values each, laid out one after another in `values`, in their order: `head` is the
 * statement up to VALUES, e.g. `INSERT INTO t (a, b)`.
 */
export function insertRows(db: SqliteDatabase, head: string, width: number, values: unknown[]): void {
  if (values.length % width !== 0) throw new Error(`insertRows: ${values.length} values are not rows of ${width}`);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / width)) * width;
  let at = 0;
  for (; at + perStatement <= values.length; at += perStatement) {
    insertOf(db, head, width, perStatement / width).run(values.slice(at, at + perStatement));
  }
  // The rest in one statement of its own size (prepared once per size, so at most a chunk's worth of sizes).
  if (at < values.length) insertOf(db, head, width, (values.length - at) / width).run(values.slice(at));
}
