// A lock shared by the processes of one data dir: an SQLite file in rollback-journal mode whose EXCLUSIVE lock is held
// for as long as the lock is. The operating system drops it when its holder exits, however it exits, so a crashed
// holder never leaves it locked.
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensurePrivateDir, preparePrivateDatabaseFile } from './private-files';

/** Lock files this process holds. */
const held = new Set<string>();

export class FileLock {
  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {}

  /**
   * Waits up to `waitMs` for the lock (another process holding it briefly), then throws. Not reentrant: asking again
   * for a lock this process holds throws at once (opening and closing the file again, as this does first, would drop
   * the process's POSIX lock on it, and SQLite would then wait for itself).
   */
  static acquire(file: string, waitMs = 30_000): FileLock {
    const path = resolve(file);
    if (held.has(path)) throw new Error(`${path} is already locked by this process`);
    ensurePrivateDir(dirname(path));
    preparePrivateDatabaseFile(path);
    const db = new Database(path);
    try {
      db.pragma(`busy_timeout = ${waitMs}`);
      // In WAL mode an exclusive transaction would not keep readers out, and isHeld could not see it.
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      held.add(path);
      return new FileLock(db, path);
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
    held.delete(this.file);
    try {
      this.db.exec('COMMIT');
    } finally {
      this.db.close();
    }
  }
}
