// A proxy as the decisions see it. The record suits a read-model document too (its secrets stay sealed).
import type { ProxyFields } from './proxy.events';

export interface ProxyRecord extends ProxyFields {
  created_by: string;
  created_at: string;
  /** Null until the first update. */
  modified_by: string | null;
  modified_at: string | null;
}

/** `deleted` is kept apart from `absent`: a deleted id stays taken, as for reactors. */
export type ProxyState = { status: 'absent' } | { status: 'active'; proxy: ProxyRecord } | { status: 'deleted'; id: string; tenant_id: string };

export const initialProxyState = (): ProxyState => ({ status: 'absent' });

/** The proxy a caller of `tenantId` may see, or null: missing, deleted and other tenants' proxies are all missing. */
export const visibleProxy = (state: ProxyState, tenantId: string | null): ProxyRecord | null =>
  state.status === 'active' && state.proxy.tenant_id === tenantId ? state.proxy : null;
