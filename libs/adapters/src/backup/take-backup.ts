// `vault backup`: a consistent snapshot of the embedded stores while other processes write to them. Each SQLite file is
// written by VACUUM INTO, which reads one transaction's snapshot (WAL readers never block writers) and writes only live
// pages: never a file copy, which could catch a database half-way through a commit or miss what is still in its -wal.
import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_STORE_FILE } from '../crypto/sqlite-key-store';
import { MASTER_KEY_FILE } from '../crypto/master-key';
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictFile } from '../sqlite/private-files';
import {
  BACKUP_FORMAT,
  BackupError,
  BackupFileName,
  BackupManifest,
  EVENTS_FILE,
  KEYS_FILE,
  MANIFEST_FILE,
  MASTER_KEY_FILE_NAME,
  masterKeyCheck,
  sha256File,
} from './backup-manifest';

export interface BackupOptions {
  dataDir: string;
  out: string;
  vaultVersion: string;
  readModelLayout: number;
  /** The master key in use, and whether it is the data dir's generated file (then it is copied) or VAULT_MASTER_KEY. */
  masterKey: { key: Buffer; source: 'file' | 'environment' };
  onProgress?: (line: string) => void;
}

export interface BackupResult {
  manifest: BackupManifest;
  bytes: number;
  seconds: number;
}

export function takeBackup({ dataDir, out, vaultVersion, readModelLayout, masterKey, onProgress = () => undefined }: BackupOptions): BackupResult {
  const started = Date.now();
  const sourceEvents = join(dataDir, EVENTS_FILE);
  if (!existsSync(sourceEvents)) throw new BackupError(`no event log in ${dataDir}: nothing to back up`);
  const createdOut = prepareOut(out);
  try {
    // The log first, then the keys: every event of the log's snapshot had its data key stored before it was appended,
    // so the later keys snapshot holds them all (bar a token whose delete is shredded in the instant between the two).
    let at = Date.now();
    vacuumInto(sourceEvents, join(out, EVENTS_FILE));
    const log = logSummary(join(out, EVENTS_FILE));
    onProgress(`backup: ${EVENTS_FILE}: ${log.events} events, up to position ${log.position ?? 'none'} (${seconds(at)})`);

    at = Date.now();
    vacuumInto(join(dataDir, KEY_STORE_FILE), join(out, KEYS_FILE));
    capShredCheckpoint(join(out, KEYS_FILE), log.position);
    onProgress(`backup: ${KEYS_FILE}: the key store, in a file of its own (${seconds(at)})`);

    if (masterKey.source === 'file') {
      copyFileSync(join(dataDir, MASTER_KEY_FILE), join(out, MASTER_KEY_FILE_NAME));
      onProgress(`backup: ${MASTER_KEY_FILE_NAME}: the generated master key; with it and ${KEYS_FILE}, the log is readable`);
    }

    const names: BackupFileName[] = [EVENTS_FILE, KEYS_FILE, ...(masterKey.source === 'file' ? [MASTER_KEY_FILE_NAME] : [])];
    const files: BackupManifest['files'] = {};
    for (const name of names) {
      restrictFile(join(out, name));
      syncFile(join(out, name));
      files[name] = sha256File(join(out, name));
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      vault_version: vaultVersion,
      read_model_layout: readModelLayout,
      created_at: new Date().toISOString(),
      event_position: log.position === null ? null : `${log.position}:${log.position}`,
      events: log.events,
      master_key: masterKey.source,
      master_key_check: masterKeyCheck(masterKey.key),
      files,
    };
    writeFileSync(join(out, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    syncFile(join(out, MANIFEST_FILE));
    syncFile(out);
    const bytes = Object.values(files).reduce((sum, file) => sum + (file?.bytes ?? 0), 0);
    onProgress(`backup: ${MANIFEST_FILE}: checksums of ${names.length} files, ${bytes} bytes in all (${seconds(started)})`);
    return { manifest, bytes, seconds: (Date.now() - started) / 1000 };
  } catch (error) {
    // Never leave a half-written backup that looks whole: what this run wrote goes.
    if (createdOut) rmSync(out, { recursive: true, force: true });
    else for (const name of readdirSync(out)) rmSync(join(out, name), { force: true });
    throw error;
  }
}

/** Creates `out` owner-only, or accepts an existing empty folder; true when it created it. */
function prepareOut(out: string): boolean {
  if (existsSync(out)) {
    if (readdirSync(out).length > 0) throw new BackupError(`${out} exists and is not empty: a backup goes into a new or empty folder`);
    ensurePrivateDir(out);
    return false;
  }
  mkdirSync(out, { recursive: true, mode: 0o700 });
  ensurePrivateDir(out);
  return true;
}

/** One read transaction's snapshot of `source`, written to `target` (born 0600: created empty first). */
function vacuumInto(source: string, target: string): void {
  closeSync(openSync(target, 'wx', PRIVATE_FILE_MODE));
  const db = new Database(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 10000');
    db.prepare('VACUUM INTO ?').run(target);
  } finally {
    db.close();
  }
}

function logSummary(file: string): { events: number; position: number | null } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT COUNT(*) AS events, MAX(position) AS position FROM events').get() as { events: number; position: number | null };
    return row;
  } finally {
    db.close();
  }
}

/**
 * The key shredder's checkpoint may be past the log's snapshot (it went on between the two snapshots). A restored log
 * numbers its new events from the snapshot's end, so a checkpoint past it would skip their deletes: it is brought
 * back to the snapshot's last event, whose deletes it has all applied.
 */
function capShredCheckpoint(keysFile: string, position: number | null): void {
  const db = new Database(keysFile, { fileMustExist: true });
  try {
    const row = db.prepare('SELECT position FROM shred_checkpoint WHERE one = 1').get() as { position: string } | undefined;
    if (!row) return;
    const commit = Number(row.position.split(':')[0]);
    if (position === null) db.prepare('DELETE FROM shred_checkpoint').run();
    else if (commit > position) db.prepare('UPDATE shred_checkpoint SET position = ? WHERE one = 1').run(`${position}:${position}`);
  } finally {
    db.close();
  }
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } catch {
    // A directory cannot be synced on every platform: it is then as durable as the file system makes it.
  } finally {
    closeSync(fd);
  }
}

const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(2)} s`;
