import type { ApplicationEvent, ApplicationSettings } from './application.events';

export interface ApplicationState extends ApplicationSettings {
  id: string;
  tenant_id: string;
  key_hash: string;
  created_by: string;
  created_at: string;
  modified_by: string | null;
  modified_at: string | null;
  deleted: boolean;
}

export function evolveApplication(state: ApplicationState | null, event: ApplicationEvent): ApplicationState | null {
  switch (event.type) {
    case 'ApplicationCreated': {
      const { key_hash, ...rest } = event.data;
      return { ...rest, key_hash, modified_by: null, modified_at: null, deleted: false };
    }
    case 'ApplicationUpdated': {
      if (!state) return state;
      const { id: _id, tenant_id: _tenant, ...settings } = event.data;
      return { ...state, ...settings };
    }
    case 'ApplicationKeyRegenerated':
      return state && { ...state, key_hash: event.data.key_hash, modified_by: event.data.modified_by, modified_at: event.data.modified_at };
    case 'ApplicationDeleted':
      return state && { ...state, deleted: true };
  }
}
