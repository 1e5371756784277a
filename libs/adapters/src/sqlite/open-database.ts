// One way to open an embedded SQLite file: WAL, a busy timeout so a second process (the CLI) waits instead of failing.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqliteDatabase = Database.Database;

export interface OpenOptions {
  /** `normal` survives a killed process (WAL); `full` also survives power loss, at an fsync per commit. */
  synchronous?: 'normal' | 'full';
  readonly?: boolean;
}

export function openDatabase(file: string, options: OpenOptions = {}): SqliteDatabase {
  if (!options.readonly) mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { readonly: options.readonly ?? false });
  db.pragma('busy_timeout = 10000');
  if (!options.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'normal'}`);
  }
  db.pragma('foreign_keys = ON');
  return db;
}
