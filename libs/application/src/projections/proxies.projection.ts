import { evolveProxy, initialProxyState, PROXY_EVENT_TYPES, proxyKey, type ProxyEvent, type ProxyRecord } from '@vault/domain';
import type { Projection } from './projection';

/**
 * The proxy read-model document is the proxy record itself: its key, destination, configuration and transforms stay
 * sealed, and the key is findable only by its hash. Keyed by tenant and id: ids are unique within a tenant only.
 */
export const proxiesProjection: Projection<ProxyRecord> = {
  collection: 'proxies',
  eventTypes: PROXY_EVENT_TYPES,
  documentId: (event) => proxyKey((event.data as ProxyEvent['data']).tenant_id, (event.data as ProxyEvent['data']).id),
  evolve(doc, event) {
    const state = evolveProxy(doc ? { status: 'active', proxy: doc } : initialProxyState(), event as unknown as ProxyEvent);
    return state.status === 'active' ? state.proxy : null;
  },
};
