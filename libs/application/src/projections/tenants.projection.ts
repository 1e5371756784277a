import { evolveTenant, TENANT_EVENT_TYPES, type TenantEvent } from '@vault/domain';
import type { TenantDocument } from '../ports/read-models';
import type { Projection } from './projection';

/** A deleted tenant keeps its document as a tombstone (`deleted: true`): the projector skips its later events by it. */
export const tenantsProjection: Projection<TenantDocument> = {
  collection: 'tenants',
  eventTypes: TENANT_EVENT_TYPES,
  evolve(doc, event) {
    return evolveTenant(doc, event as unknown as TenantEvent);
  },
};
