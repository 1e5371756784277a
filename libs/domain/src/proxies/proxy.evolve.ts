import type { ProxyEvent } from './proxy.events';
import type { ProxyState } from './proxy.state';

export const evolveProxy = (state: ProxyState, event: ProxyEvent): ProxyState => {
  switch (event.type) {
    case 'ProxyCreated': {
      const { created_by, created_at, ...fields } = event.data;
      return { status: 'active', proxy: { ...fields, created_by, created_at, modified_by: null, modified_at: null } };
    }
    case 'ProxyUpdated': {
      // decide never updates a missing proxy, so a stray update has nothing to apply to.
      if (state.status !== 'active') return state;
      const { modified_by, modified_at, ...fields } = event.data;
      const { created_by, created_at } = state.proxy;
      return { status: 'active', proxy: { ...fields, created_by, created_at, modified_by, modified_at } };
    }
    case 'ProxyDeleted':
      return { status: 'deleted', id: event.data.id, tenant_id: event.data.tenant_id };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};
