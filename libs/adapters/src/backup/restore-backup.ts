// `vault restore`: fills an empty data dir from a backup folder, after checking every file against its manifest. The
// read models are not in a backup: the first start on the data dir finds none and its projector replays the log.
import { closeSync, copyFileSync, constants, existsSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, restrictFile } from '../sqlite/private-files';
import { BackupError, BackupFileName, BackupManifest, MANIFEST_FILE, MASTER_KEY_FILE_NAME, masterKeyCheck, parseManifest, sha256File } from './backup-manifest';

export interface RestoreOptions {
  from: string;
  dataDir: string;
  /** VAULT_MASTER_KEY, decoded, when it is set. */
  configuredMasterKey: Buffer | null;
  onProgress?: (line: string) => void;
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** The files written into the data dir. */
  restored: BackupFileName[];
}

export function restoreBackup({ from, dataDir, configuredMasterKey, onProgress = () => undefined }: RestoreOptions): RestoreResult {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new BackupError(`the data dir ${dataDir} is not empty: a restore fills an empty (or missing) data dir only`);
  }
  const manifestPath = join(from, MANIFEST_FILE);
  if (!existsSync(manifestPath)) throw new BackupError(`${from} holds no ${MANIFEST_FILE}: not a vault backup`);
  const manifest = parseManifest(readFileSync(manifestPath, 'utf8'));
  const names = Object.keys(manifest.files) as BackupFileName[];

  for (const name of names) {
    if (!existsSync(join(from, name))) throw new BackupError(`${name} is missing from ${from}; nothing was restored`);
    if (sha256File(join(from, name)).sha256 !== manifest.files[name]!.sha256) {
      throw new BackupError(`${name} does not match its SHA-256 in ${MANIFEST_FILE}: the backup is damaged or was altered; nothing was restored`);
    }
    onProgress(`restore: ${name}: checksum verified`);
  }

  // The master key is never chosen silently: the restored log must open with the key it was written under.
  const copyMasterKey = checkMasterKey(manifest, from, configuredMasterKey, onProgress);
  const restored = names.filter((name) => name !== MASTER_KEY_FILE_NAME || copyMasterKey);

  ensurePrivateDir(dataDir);
  try {
    for (const name of restored) {
      const draft = join(dataDir, `${name}.restoring`);
      copyFileSync(join(from, name), draft, constants.COPYFILE_EXCL);
      restrictFile(draft);
      syncPath(draft);
      // What landed is what was verified.
      if (sha256File(draft).sha256 !== manifest.files[name]!.sha256) throw new BackupError(`${name} changed while it was copied; nothing was restored`);
      renameSync(draft, join(dataDir, name));
      onProgress(`restore: ${name}: copied into the data dir`);
    }
    syncPath(dataDir);
  } catch (error) {
    for (const name of restored) for (const path of [join(dataDir, name), join(dataDir, `${name}.restoring`)]) rmSync(path, { force: true });
    throw error;
  }
  return { manifest, restored };
}

/** Whether to copy master.key; refuses a VAULT_MASTER_KEY that is not the backup's key, or a missing one. */
function checkMasterKey(manifest: BackupManifest, from: string, configured: Buffer | null, onProgress: (line: string) => void): boolean {
  if (configured !== null) {
    if (masterKeyCheck(configured) !== manifest.master_key_check) {
      throw new BackupError('VAULT_MASTER_KEY is not the master key this backup was taken with: its tokens could not be read; nothing was restored');
    }
    if (manifest.master_key === 'file') onProgress(`restore: ${MASTER_KEY_FILE_NAME} left out: VAULT_MASTER_KEY is set, and is the same key`);
    return false;
  }
  if (manifest.master_key === 'environment') {
    throw new BackupError('this backup was taken with VAULT_MASTER_KEY set: restore (and start the API) with the same VAULT_MASTER_KEY; nothing was restored');
  }
  const key = readFileSync(join(from, MASTER_KEY_FILE_NAME), 'utf8').trim();
  if (masterKeyCheck(Buffer.from(key, 'base64')) !== manifest.master_key_check) {
    throw new BackupError(`${MASTER_KEY_FILE_NAME} is not the master key this backup was taken with; nothing was restored`);
  }
  onProgress(`restore: ${MASTER_KEY_FILE_NAME}: the backup's generated master key is restored with it (set VAULT_MASTER_KEY in production)`);
  return true;
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } catch {
    // Directories cannot be synced everywhere.
  } finally {
    closeSync(fd);
  }
}
