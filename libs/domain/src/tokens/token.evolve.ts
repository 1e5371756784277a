import type { TokenEvent } from './token.events';
import type { TokenState } from './token.state';

export const evolveToken = (state: TokenState, event: TokenEvent): TokenState => {
  switch (event.type) {
    case 'TokenCreated': {
      const { created_by, created_at, ...fields } = event.data;
      return { status: 'active', token: { ...fields, created_by, created_at, modified_by: null, modified_at: null } };
    }
    case 'TokenUpdated': {
      // decide never updates a missing token, so a stray update has nothing to apply to.
      if (state.status !== 'active') return state;
      const { modified_by, modified_at, ...fields } = event.data;
      const { created_by, created_at } = state.token;
      return { status: 'active', token: { ...fields, created_by, created_at, modified_by, modified_at } };
    }
    case 'TokenDeleted':
      return { status: 'deleted', id: event.data.id, tenant_id: event.data.tenant_id };
    default: {
      const unhandled: never = event;
      return unhandled;
    }
  }
};
