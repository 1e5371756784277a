import type { TenantEvent } from '@vault/domain';
import type { TenantDocument } from '../ports/read-models';
import type { Projection } from './projection';

export const tenantsProjection: Projection<TenantDocument> = {
  collection: 'tenants',
  eventTypes: ['TenantCreated'],
  evolve(_doc, event) {
    const e = event as unknown as TenantEvent;
    return { ...e.data };
  },
};
