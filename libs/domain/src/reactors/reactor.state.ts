// A reactor as the decisions see it. The record suits a read-model document too (the configuration stays sealed).
import type { ReactorFields } from './reactor.events';

export interface ReactorRecord extends ReactorFields {
  created_by: string;
  created_at: string;
  /** Null until the first update. */
  modified_by: string | null;
  modified_at: string | null;
}

/**
 * `deleted` is kept apart from `absent` because a deleted id stays taken: its stream already holds a history, so a
 * create with that id (only a replayed request can send one: the service generates reactor ids) is a conflict.
 */
export type ReactorState =
  | { status: 'absent' }
  | { status: 'active'; reactor: ReactorRecord }
  | { status: 'deleted'; id: string; tenant_id: string };

export const initialReactorState = (): ReactorState => ({ status: 'absent' });

/** The reactor a caller of `tenantId` may see, or null: missing, deleted and other tenants' reactors are all missing. */
export const visibleReactor = (state: ReactorState, tenantId: string | null): ReactorRecord | null =>
  state.status === 'active' && state.reactor.tenant_id === tenantId ? state.reactor : null;
