// The EventStoreDB adapter, a subpath of its own (@vault/adapters/esdb): loaded only when VAULT_EVENT_STORE names a server.
export * from './event-store/esdb/esdb-event-store';
