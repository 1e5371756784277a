// Crypto-shredding follows from the event log: every TokenDeleted (a caller's DELETE or the expiry sweep) names a data
// key to destroy, and so does every ReactorDeleted (the key that sealed the reactor's configuration), every private
// ReactorFormulaDeleted (the key that sealed its code), every ProxyDeleted (the key that sealed the proxy's key,
// destination, configuration and transforms), every WebhookDeleted (the key that sealed its signing secret) and every TenantDeleted (the tenant's key, and with it every
// data key of the tenant). Run by a Projector
// over a KeyShreddingStore, it has its own checkpoint beside the keys, retries until the key store accepts the batch,
// and is idempotent (destroying a missing key is not an error), so neither a crash after the delete is durable nor a
// failing key store can leave a deleted token's or reactor's key behind.
import { tokenKey, type ProxyDeletedData, type ReactorDeletedData, type TenantDeleted, type TokenDeletedData, type WebhookDeletedData } from '@vault/domain';
import { proxyKeyId } from '../proxies/sealing/proxy-secrets';
import { formulaKeyId } from '../reactor-formulas/sealing/sealed-formula-content';
import { reactorKeyId } from '../reactors/sealing/reactor-configuration';
import type { RecordedEvent } from '../ports/event-store';
import { webhookKeyId } from '../webhooks/sealing/webhook-secret';
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

/** The key an event names, or null for one that names none (an official formula's delete: nothing of it is sealed). */
const keyToShred = (event: RecordedEvent): KeyToShred | null => {
  if (event.type === 'ReactorFormulaDeleted') {
    // The delete carries no tenant: whose formula it was is the tenant the delete was made in.
    const tenant_id = event.metadata.tenant_id;
    return tenant_id === null ? null : { tenant_id, token_id: formulaKeyId((event.data as { id: string }).id) };
  }
  if (event.type === 'TenantDeleted') return { tenant_id: (event.data as TenantDeleted['data']).id, token_id: TENANT_KEY_ID, whole_tenant: true };
  if (event.type === 'ReactorDeleted') {
    const { tenant_id, id } = event.data as ReactorDeletedData;
    return { tenant_id, token_id: reactorKeyId(id) };
  }
  if (event.type === 'ProxyDeleted') {
    const { tenant_id, id } = event.data as ProxyDeletedData;
    return { tenant_id, token_id: proxyKeyId(id) };
  }
  if (event.type === 'WebhookDeleted') {
    const { tenant_id, id } = event.data as WebhookDeletedData;
    return { tenant_id, token_id: webhookKeyId(id) };
  }
  const { tenant_id, id } = event.data as TokenDeletedData;
  return { tenant_id, token_id: id };
};

export const keyShreddingProjection: Projection<KeyToShred> = {
  collection: KEY_SHREDDING_COLLECTION,
  eventTypes: ['TokenDeleted', 'ReactorDeleted', 'ReactorFormulaDeleted', 'ProxyDeleted', 'WebhookDeleted', 'TenantDeleted'],
  documentId: (event) => {
    const key = keyToShred(event);
    return key === null ? `official:${(event.data as { id: string }).id}` : tokenKey(key.tenant_id, key.token_id);
  },
  evolve: (_doc, event: RecordedEvent) => keyToShred(event),
};
