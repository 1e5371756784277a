// `vault tenant list`: the live tenants, folded from the tenant streams of the event log rather than read from a read
// model, so that a tenant this tool just created is listed even when no API has projected it yet.
import type { EventStore, RecordedEvent } from '@vault/application';
import { TENANT_STREAM_PREFIX, type TenantEvent } from '@vault/domain';

export interface ListedTenant {
  id: string;
  name: string;
  created_at: string;
}

/** Applies one tenant event to the list (keyed by id, in creation order); never a key, only id, name and date. */
export function foldTenant(tenants: Map<string, ListedTenant>, event: TenantEvent): void {
  switch (event.type) {
    case 'TenantCreated':
      tenants.set(event.data.id, { id: event.data.id, name: event.data.name, created_at: event.data.created_at });
      return;
    case 'TenantRenamed': {
      const tenant = tenants.get(event.data.id);
      if (tenant) tenant.name = event.data.name;
      return;
    }
    case 'TenantDeleted':
      tenants.delete(event.data.id);
      return;
  }
}

/** Reads the tenant streams to the end of the log and folds them. */
export function listTenants(events: EventStore): Promise<ListedTenant[]> {
  const tenants = new Map<string, ListedTenant>();
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (error?: unknown) => {
      if (done) return;
      done = true;
      // On a later turn: the store may report catching up before subscribe() has returned the subscription.
      setImmediate(() => void subscription.close().then(() => (error === undefined ? resolve([...tenants.values()]) : reject(error)), reject));
    };
    const subscription = events.subscribe({
      after: null,
      streamPrefixes: [TENANT_STREAM_PREFIX],
      onEvents: async (batch: RecordedEvent[]) => {
        for (const event of batch) foldTenant(tenants, event as unknown as TenantEvent);
      },
      onCaughtUp: () => finish(),
      onError: (error) => finish(error),
    });
  });
}
