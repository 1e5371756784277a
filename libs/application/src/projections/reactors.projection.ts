import { evolveReactor, initialReactorState, REACTOR_EVENT_TYPES, ReactorEvent, reactorKey, ReactorRecord } from '@vault/domain';
import type { Projection } from './projection';

/**
 * The reactor read-model document is the reactor record itself: its configuration stays sealed (only its shape, which
 * the formula publishes anyway, is readable). Keyed by tenant and id, as tokens are: ids are unique within a tenant only.
 */
export const reactorsProjection: Projection<ReactorRecord> = {
  collection: 'reactors',
  eventTypes: REACTOR_EVENT_TYPES,
  documentId: (event) => reactorKey((event.data as ReactorEvent['data']).tenant_id, (event.data as ReactorEvent['data']).id),
  evolve(doc, event) {
    const state = evolveReactor(doc ? { status: 'active', reactor: doc } : initialReactorState(), event as unknown as ReactorEvent);
    return state.status === 'active' ? state.reactor : null;
  },
};
