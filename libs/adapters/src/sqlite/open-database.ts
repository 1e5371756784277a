// One way to open an embedded SQLite file: WAL, a busy timeout so a second process (the CLI) waits instead of failing.
import Database from 'better-sqlite3';
import { dirname } from 'node:path';
import { ensurePrivateDir, preparePrivateDatabaseFile } from './private-files';

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** `normal` survives a killed process (WAL); `full` also survives power loss, at an fsync per commit. */
  synchronous?: 'normal' | 'full';
  readonly?: boolean;
  /** SQLite's page cache for this connection, in MiB (SQLite's default is 2). */
  cacheMiB?: number;
}

export function openDatabase(file: string, options: OpenOptions = {}): SqliteDatabase {
  if (!options.readonly) {
    ensurePrivateDir(dirname(file));
    preparePrivateDatabaseFile(file);
  }
  const db = new Database(file, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'normal'}`);
    // Checkpoints less often than the default 1,000 pages, but small enough not to stall a request for long.
    db.pragma('wal_autocheckpoint = 4000');
  }
  if (options.cacheMiB !== undefined) db.pragma(`cache_size = -${Math.round(options.cacheMiB * 1024)}`);
  db.pragma('foreign_keys = ON');
  // Freed cells and pages are zeroed: what a delete or an update removes does not linger in the file's free space.
  if (!options.readonly) db.pragma('secure_delete = ON');
  return db;
}

const STATEMENT_CACHE_SIZE = 500;
const statementCaches = new WeakMap<SqliteDatabase, Map<string, Database.Statement>>();

/**
 * A prepared statement for `sql` on `db`, prepared once and reused: preparing costs more than running most of our
 * queries. Bounded, because search builds its SQL from the query's shape (the values are always bound parameters).
 */
export function statement(db: SqliteDatabase, sql: string): Database.Statement {
  let cache = statementCaches.get(db);
  if (!cache) statementCaches.set(db, (cache = new Map()));
  let prepared = cache.get(sql);
  if (prepared) return prepared;
  prepared = db.prepare(sql);
  if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
  cache.set(sql, prepared);
  return prepared;
}
