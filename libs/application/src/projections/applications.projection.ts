import { APPLICATION_EVENT_TYPES, ApplicationEvent, ApplicationState, evolveApplication } from '@vault/domain';
import type { ApplicationDocument } from '../ports/read-models';
import type { Projection } from './projection';

export const applicationsProjection: Projection<ApplicationDocument> = {
  collection: 'applications',
  eventTypes: APPLICATION_EVENT_TYPES,
  evolve(doc, event) {
    const state = doc && ({ ...doc, deleted: false } as ApplicationState);
    const next = evolveApplication(state, event as unknown as ApplicationEvent);
    if (!next || next.deleted) return null;
    const { deleted: _deleted, ...document } = next;
    return document;
  },
};
