// `vault keys rotate-master`: every tenant key of the key store re-wrapped under VAULT_MASTER_KEY, opened with
// VAULT_MASTER_KEY_PREVIOUS, while the API runs (given both keys, it reads every tenant throughout). Killed part-way,
// it is run again and goes on. Progress on stderr, one JSON line on stdout.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MasterKeyRotationError, rotateMasterKey, SqliteKeyStore, type RotationProgress } from '@vault/adapters';
import { loadMasterKey, loadPreviousMasterKey, MASTER_KEY_FILE, MasterKeyError } from '@vault/adapters/crypto/master-key';
import type { VaultConfig } from '@vault/nest';

/** The key store's file: the only store a rotation writes. */
const KEY_STORE = 'keys.sqlite';

export class RotationRefused extends Error {}

export async function rotateMaster(config: VaultConfig, progress: (line: string) => void): Promise<RotationProgress & { master_key_file_left: boolean }> {
  if (!config.masterKey) throw new RotationRefused('Set VAULT_MASTER_KEY to the new master key (openssl rand -base64 32).');
  const previous = loadPreviousMasterKey(config.masterKeyPrevious);
  if (previous === null) throw new RotationRefused('Set VAULT_MASTER_KEY_PREVIOUS to the master key the tenant keys are wrapped under now.');
  const master = loadMasterKey({ configured: config.masterKey, dataDir: config.dataDir, allowGenerated: false }).key;
  const file = join(config.dataDir, KEY_STORE);
  if (!existsSync(file)) throw new RotationRefused(`No key store at ${file}: is VAULT_DATA_DIR the API's data directory?`);
  const keys = SqliteKeyStore.open(config.dataDir, config.sync);
  try {
    let last = '';
    const result = rotateMasterKey(keys, master, previous, (p) => {
      const line = `rotate-master: ${p.rewrapped + p.already + p.skipped}/${p.total} tenant keys (${p.rewrapped} re-wrapped, ${p.already} already done)`;
      if (line !== last) progress(line);
      last = line;
    });
    // A key file generated in the data dir holds the previous key (or an older one): it opens nothing now.
    return { ...result, master_key_file_left: existsSync(join(config.dataDir, MASTER_KEY_FILE)) };
  } finally {
    keys.close();
  }
}

export const isRotationRefusal = (error: unknown): boolean =>
  error instanceof RotationRefused || error instanceof MasterKeyRotationError || error instanceof MasterKeyError;
