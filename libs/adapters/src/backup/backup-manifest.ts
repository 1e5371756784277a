// What a backup folder holds and how its manifest.json describes it; shared by the snapshot and the restore.
import { createHash, createHmac } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

export const MANIFEST_FILE = 'manifest.json';
export const BACKUP_FORMAT = 1;
export const EVENTS_FILE = 'events.sqlite' as const;
export const KEYS_FILE = 'keys.sqlite' as const;
export const MASTER_KEY_FILE_NAME = 'master.key' as const;
/** The only names a manifest may list: a restore never writes anywhere else in the data dir. */
export const BACKUP_FILES = [EVENTS_FILE, KEYS_FILE, MASTER_KEY_FILE_NAME] as const;
export type BackupFileName = (typeof BACKUP_FILES)[number];

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  vault_version: string;
  /** The embedded read model's table layout when the backup was taken (the read models themselves are not in it). */
  read_model_layout: number;
  created_at: string;
  /** The log position of the snapshot's last event (`commit:prepare`), or null for an empty log. */
  event_position: string | null;
  events: number;
  /** Where the master key came from: `file` (master.key is in the backup) or `environment` (VAULT_MASTER_KEY). */
  master_key: 'file' | 'environment';
  /** A check value of the master key (an HMAC under it of a fixed text): tells a wrong key without revealing the key. */
  master_key_check: string;
  files: Partial<Record<BackupFileName, { bytes: number; sha256: string }>>;
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

export const masterKeyCheck = (key: Buffer): string => createHmac('sha256', key).update('vault backup master key check v1').digest('hex');

/** SHA-256 of a file, read in chunks (an event log may be larger than memory wants). */
export function sha256File(path: string): { sha256: string; bytes: number } {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  let bytes = 0;
  try {
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; bytes += n) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Parses and checks a manifest's shape; any file name outside BACKUP_FILES is refused. */
export function parseManifest(text: string): BackupManifest {
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new BackupError(`${MANIFEST_FILE} is not valid JSON`);
  }
  if (manifest?.format !== BACKUP_FORMAT) throw new BackupError(`${MANIFEST_FILE} is not a backup of format ${BACKUP_FORMAT}`);
  const files = manifest.files ?? {};
  for (const [name, entry] of Object.entries(files)) {
    if (!(BACKUP_FILES as readonly string[]).includes(name)) throw new BackupError(`${MANIFEST_FILE} lists an unexpected file: ${name}`);
    if (!/^[0-9a-f]{64}$/.test(entry?.sha256 ?? '')) throw new BackupError(`${MANIFEST_FILE} has no SHA-256 for ${name}`);
  }
  if (!files[EVENTS_FILE] || !files[KEYS_FILE]) throw new BackupError(`${MANIFEST_FILE} must list ${EVENTS_FILE} and ${KEYS_FILE}`);
  if (manifest.master_key === 'file' && !files[MASTER_KEY_FILE_NAME]) throw new BackupError(`${MANIFEST_FILE} must list ${MASTER_KEY_FILE_NAME}`);
  if (typeof manifest.master_key_check !== 'string') throw new BackupError(`${MANIFEST_FILE} has no master_key_check`);
  return manifest;
}
