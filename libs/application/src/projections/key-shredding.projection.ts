// Crypto-shredding follows from the event log: every TokenDeleted (a caller's DELETE or the expiry sweep) names a data
// key to destroy, and so does every ReactorDeleted (the key that sealed the reactor's configuration) and every
// TenantDeleted (the tenant's key, and with it every data key of the tenant). Run by a Projector
// over a KeyShreddingStore, it has its own checkpoint beside the keys, retries until the key store accepts the batch,
// and is idempotent (destroying a missing key is not an error), so neither a crash after the delete is durable nor a
// failing key store can leave a deleted token's or reactor's key behind.
import { tokenKey, type ReactorDeletedData, type TenantDeleted, type TokenDeletedData } from '@vault/domain';
import type { RecordedEvent } from '../ports/event-store';
import type { Projection } from './projection';

/** One data key to destroy. */
export interface KeyToShred {
  tenant_id: string;
  /** The key's id in the key store: a token id, or reactorKeyId(id) for a reactor's configuration. */
  token_id: string;
  /** TenantDeleted: the tenant's own key, which wraps all of its data keys (token_id is then TENANT_KEY_ID). */
  whole_tenant?: true;
}

/** The document id of a tenant key to destroy: never a token id (those are UUIDs or user ids without it) or a reactor's. */
export const TENANT_KEY_ID = 'tenant:*';

export const KEY_SHREDDING_COLLECTION = 'shredded_keys';

/**
 * The key-store id of the key that seals a reactor's configuration. Token ids are UUIDs, so `reactor:<uuid>` is never
 * a token's key, and destroying one never touches the other.
 */
export const reactorKeyId = (reactorId: string): string => `reactor:${reactorId}`;

const keyToShred = (event: RecordedEvent): KeyToShred => {
  if (event.type === 'TenantDeleted') return { tenant_id: (event.data as TenantDeleted['data']).id, token_id: TENANT_KEY_ID, whole_tenant: true };
  if (event.type === 'ReactorDeleted') {
    const { tenant_id, id } = event.data as ReactorDeletedData;
    return { tenant_id, token_id: reactorKeyId(id) };
  }
  const { tenant_id, id } = event.data as TokenDeletedData;
  return { tenant_id, token_id: id };
};

export const keyShreddingProjection: Projection<KeyToShred> = {
  collection: KEY_SHREDDING_COLLECTION,
  eventTypes: ['TokenDeleted', 'ReactorDeleted', 'TenantDeleted'],
  documentId: (event) => {
    const { tenant_id, token_id } = keyToShred(event);
    return tokenKey(tenant_id, token_id);
  },
  evolve: (_doc, event: RecordedEvent) => keyToShred(event),
};
