import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteKeyStore } from '@vault/adapters';
import { describeKeyStoreContract } from './key-store.contract';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describeKeyStoreContract('Embedded SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-keys-'));
  dirs.push(dir);
  const store = SqliteKeyStore.open(dir);
  return { store, close: () => store.close() };
});
