// The master key that derives every tenant key: from VAULT_MASTER_KEY, or in embedded development from a generated
// file in the data directory. No message here ever includes the key or the variable's value.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE, restrictFile } from '../sqlite/private-files';

export const MASTER_KEY_BYTES = 32;
export const MASTER_KEY_FILE = 'master.key';

export interface MasterKeyOptions {
  /** The value of VAULT_MASTER_KEY, if set. */
  configured: string | undefined;
  dataDir: string;
  /** Embedded development mode: without VAULT_MASTER_KEY, read or create `<dataDir>/master.key`. */
  allowGenerated: boolean;
}

export interface MasterKey {
  key: Buffer;
  source: 'environment' | 'file';
  /** True when this start-up created the key file: the caller warns that data is only as safe as that file. */
  generated: boolean;
  /** The key file used, when source is `file`. */
  file?: string;
}

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const HOW_TO = 'Generate one with: openssl rand -base64 32';

export class MasterKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MasterKeyError';
  }
}

export function loadMasterKey({ configured, dataDir, allowGenerated }: MasterKeyOptions): MasterKey {
  if (configured !== undefined && configured.trim() !== '') {
    return { key: decode(configured, 'VAULT_MASTER_KEY'), source: 'environment', generated: false };
  }
  if (!allowGenerated) {
    throw new MasterKeyError(`VAULT_MASTER_KEY is not set; it must be the base64 encoding of 32 random bytes. ${HOW_TO}`);
  }
  const file = join(dataDir, MASTER_KEY_FILE);
  ensurePrivateDir(dataDir);
  // A key file copied in (or left by an older version) with a wider mode is narrowed before it is used.
  restrictFile(file);
  removeStaleDrafts(dataDir);
  const existing = readKeyFile(file);
  if (existing !== null) return { key: decode(existing, file), source: 'file', generated: false, file };
  const key = randomBytes(MASTER_KEY_BYTES);
  if (publishKeyFile(file, key)) return { key, source: 'file', generated: true, file };
  return { key: decode(readKeyFile(file) ?? '', file), source: 'file', generated: false, file };
}

/** VAULT_MASTER_KEY_PREVIOUS, during a master-key rotation: the key the tenant keys were wrapped under; null when unset. */
export function loadPreviousMasterKey(configured: string | undefined): Buffer | null {
  return configured !== undefined && configured.trim() !== '' ? decode(configured, 'VAULT_MASTER_KEY_PREVIOUS') : null;
}

/** A draft older than this was left by a process that died while publishing its key (a draft lives milliseconds). */
const STALE_DRAFT_MS = 60_000;
const DRAFT = /^master\.key\.\d+\.[0-9a-f]+\.tmp$/;

/**
 * Writes the key to a file of its own, then links it as `file`: the name appears with the whole key or not at all, so a
 * process starting at the same moment never reads a half-written file. False when another process linked its key first;
 * that key wins, as it may already be in use. On a file system without hard links, the key is written in place (`wx`).
 */
function publishKeyFile(file: string, key: Buffer): boolean {
  const text = `${key.toString('base64')}\n`;
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const fd = openSync(draft, 'wx', PRIVATE_FILE_MODE);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(draft, file);
    syncDirectory(dirname(file));
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS' && code !== 'EXDEV') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  try {
    // `wx`: never overwrite a key file another process created meanwhile.
    writeFileSync(file, text, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Drafts of processes that died while publishing: each holds a key that is either the published one or never used. */
function removeStaleDrafts(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!DRAFT.test(name)) continue;
    const path = join(dir, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_DRAFT_MS) rmSync(path, { force: true });
    } catch {
      // Removed meanwhile by its own process or another one.
    }
  }
}

/** Makes the new name durable (where the platform can sync a directory). */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not supported here: the name is as durable as the file system makes it.
  }
}

const readKeyFile = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
};

const decode = (text: string, origin: string): Buffer => {
  const trimmed = text.trim();
  if (!BASE64_32_BYTES.test(trimmed)) {
    throw new MasterKeyError(`${origin} must be the base64 encoding of exactly ${MASTER_KEY_BYTES} bytes. ${HOW_TO}`);
  }
  return Buffer.from(trimmed, 'base64');
};
