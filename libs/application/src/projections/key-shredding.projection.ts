// Crypto-shredding follows from the event log: every TokenDeleted (a caller's DELETE or the expiry sweep) names a data
// key to destroy. Run by a Projector over a KeyShreddingStore, it has its own checkpoint beside the keys, retries until
// the key store accepts the batch, and is idempotent (destroying a missing key is not an error), so neither a crash
// after the delete is durable nor a failing key store can leave a deleted token's key behind.
import { tokenKey, type TokenDeletedData } from '@vault/domain';
import type { RecordedEvent } from '../ports/event-store';
import type { Projection } from './projection';

/** One data key to destroy. */
export interface KeyToShred {
  tenant_id: string;
  token_id: string;
}

export const KEY_SHREDDING_COLLECTION = 'shredded_keys';

export const keyShreddingProjection: Projection<KeyToShred> = {
  collection: KEY_SHREDDING_COLLECTION,
  eventTypes: ['TokenDeleted'],
  documentId: (event) => tokenKey((event.data as TokenDeletedData).tenant_id, (event.data as TokenDeletedData).id),
  evolve: (_doc, event: RecordedEvent) => {
    const { tenant_id, id } = event.data as TokenDeletedData;
    return { tenant_id, token_id: id };
  },
};
