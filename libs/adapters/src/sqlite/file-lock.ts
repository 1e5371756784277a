// A lock shared by the processes of one data dir: an SQLite file in rollback-journal mode whose EXCLUSIVE lock is held
// for as long as the lock is. The operating system drops it when its holder exits, however it exits, so a crashed
// holder never leaves it locked.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ensurePrivateDir, preparePrivateDatabaseFile } from './private-files';

export class FileLock {
  private constructor(private readonly db: Database.Database) {}

  /** Waits up to `waitMs` for the lock (another process holding it briefly), then throws. */
  static acquire(file: string, waitMs = 30_000): FileLock {
    ensurePrivateDir(dirname(file));
    preparePrivateDatabaseFile(file);
    const db = new Database(file);
    try {
      db.pragma(`busy_timeout = ${waitMs}`);
      // In WAL mode an exclusive transaction would not keep readers out, and isHeld could not see it.
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      return new FileLock(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Whether another connection (of any process) holds the lock on `file` now. A missing file is not held. */
  static isHeld(file: string): boolean {
    if (!existsSync(file)) return false;
    let db: Database.Database;
    try {
      db = new Database(file, { fileMustExist: true });
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CANTOPEN') return false;
      throw error;
    }
    try {
      db.pragma('busy_timeout = 0');
      db.exec('BEGIN IMMEDIATE');
      db.exec('ROLLBACK');
      return false;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_BUSY') return true;
      throw error;
    } finally {
      db.close();
    }
  }

  release(): void {
    if (!this.db.open) return;
    this.db.exec('COMMIT');
    this.db.close();
  }
}
