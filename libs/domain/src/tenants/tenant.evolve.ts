import type { TenantEvent } from './tenant.events';
import type { TenantState } from './tenant.state';

export function evolveTenant(state: TenantState | null, event: TenantEvent): TenantState | null {
  switch (event.type) {
    case 'TenantCreated':
      return { ...event.data };
    case 'TenantRenamed':
      return state && { ...state, name: event.data.name, modified_by: event.data.modified_by, modified_at: event.data.modified_at };
    case 'TenantDeleted':
      return state && { ...state, deleted: true };
  }
}
