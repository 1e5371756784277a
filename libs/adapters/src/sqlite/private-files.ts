// Files under VAULT_DATA_DIR are readable by their owner only: directories 0700, files 0600, whatever the
// process umask (the apps also set umask 077, but the stores are opened in-process by tests and tools too).
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The files SQLite keeps beside a database: created later (first write, first WAL read), so they need care too. */
export const SQLITE_COMPANION_SUFFIXES = ['-wal', '-shm', '-journal'] as const;

/** Creates `dir` (and any missing parent) owner-only, and narrows it when it already exists. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Narrows `file` to 0600 when it exists. */
export function restrictFile(file: string): void {
  try {
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Creates a database file owner-only before SQLite opens it, and narrows an existing one and its companions. SQLite
 * creates the -wal, -shm and -journal files with the database file's own mode, so they are born 0600 as well.
 */
export function preparePrivateDatabaseFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  restrictFile(file);
  for (const suffix of SQLITE_COMPANION_SUFFIXES) restrictFile(file + suffix);
}
