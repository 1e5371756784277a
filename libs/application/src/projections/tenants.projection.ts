import { TENANT_EVENT_TYPES, type TenantEvent } from '@vault/domain';
import type { TenantDocument } from '../ports/read-models';
import type { Projection } from './projection';

export const tenantsProjection: Projection<TenantDocument> = {
  collection: 'tenants',
  eventTypes: TENANT_EVENT_TYPES,
  evolve(_doc, event) {
    const e = event as unknown as TenantEvent;
    return { ...e.data };
  },
};
