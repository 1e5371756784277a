import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@vault/adapters';
import { describeEventStoreContract } from './event-store.contract';

const dir = mkdtempSync(join(tmpdir(), 'vault-events-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeEventStoreContract('Embedded SQLite', async () => {
  const store = SqliteEventStore.open(dir);
  return { store, dispose: () => store.close() };
}, { atomicBatches: true });
