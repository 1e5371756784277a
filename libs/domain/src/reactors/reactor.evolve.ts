import type { ReactorEvent } from './reactor.events';
import type { ReactorState } from './reactor.state';

export const evolveReactor = (state: ReactorState, event: ReactorEvent): ReactorState => {
  switch (event.type) {
    case 'ReactorCreated': {
      const { created_by, created_at, ...fields } = event.data;
      return { status: 'active', reactor: { ...fields, created_by, created_at, modified_by: null, modified_at: null } };
    }
    case 'ReactorUpdated': {
      // decide never updates a missing reactor, so a stray update has nothing to apply to.
      if (state.status !== 'active') return state;
      const { modified_by, modified_at, ...fields } = event.data;
      const { created_by, created_at } = state.reactor;
      return { status: 'active', reactor: { ...fields, created_by, created_at, modified_by, modified_at } };
    }
    case 'ReactorDeleted':
      return { status: 'deleted', id: event.data.id, tenant_id: event.data.tenant_id };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};
