import type { EventStore } from '@vault/application';
import { SqliteEventStore } from '@vault/adapters';
import type { VaultConfig } from './config';

export function openEventStore(config: VaultConfig): EventStore {
  if (config.eventStore === 'embedded') return SqliteEventStore.open(config.dataDir, config.sync);
  // Loaded only when configured, so the embedded default never loads the EventStoreDB client.
  const esdb: typeof import('@vault/adapters/esdb') = require('@vault/adapters/esdb');
  return esdb.EsdbEventStore.fromConnectionString(config.eventStore);
}
