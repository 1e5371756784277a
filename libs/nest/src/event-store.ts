import type { EventStore } from '@vault/application';
import { EsdbEventStore, SqliteEventStore } from '@vault/adapters';
import type { VaultConfig } from './config';

export function openEventStore(config: VaultConfig): EventStore {
  return config.eventStore === 'embedded'
    ? SqliteEventStore.open(config.dataDir, config.sync)
    : EsdbEventStore.fromConnectionString(config.eventStore);
}
