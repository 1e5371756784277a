import type { ApplicationDocument, TenantDocument } from '@vault/application';
import { meiliApplicationsCollection, meiliTenantsCollection, tenantFilter } from './meili-directory';

const application: ApplicationDocument = {
  id: '0b6f3c1e-8d0a-4c55-9a43-2f1f4f0f2b10',
  tenant_id: 'c0ffee00-0000-4000-8000-000000000001',
  name: 'Checkout',
  type: 'private',
  permissions: ['token:read'],
  rules: [{ priority: 1, container: '/pci/', transform: 'mask', permissions: ['token:read'] }],
  expires_at: null,
  key_hash: 'ab12',
  created_by: 'operator',
  created_at: '2024-05-01T10:00:00.123Z',
  modified_by: null,
  modified_at: null,
};

describe('meiliApplicationsCollection', () => {
  const stored = meiliApplicationsCollection.toDocument(application.id, 4n, { ...application });

  it('puts tenant, key hash and creation time (as a number, for sorting) beside the document', () => {
    expect(stored).toMatchObject({
      id: application.id,
      _revision: 4,
      tenant_id: application.tenant_id,
      key_hash: 'ab12',
      created_at_ms: Date.UTC(2024, 4, 1, 10, 0, 0, 123),
    });
  });

  it('gives back the application unchanged', () => {
    expect(meiliApplicationsCollection.fromDocument(stored)).toEqual(application);
  });

  it('filters on tenant, key hash and id, and sorts newest first then by id', () => {
    expect(meiliApplicationsCollection.settings).toEqual({
      filterableAttributes: ['tenant_id', 'key_hash', 'id'],
      sortableAttributes: ['created_at_ms', 'id'],
    });
  });
});

describe('meiliTenantsCollection', () => {
  it('round-trips a tenant', () => {
    const tenant: TenantDocument = { id: 't-1', name: 'Acme "Inc"', created_by: 'operator', created_at: '2024-05-01T10:00:00.000Z' };
    const stored = meiliTenantsCollection.toDocument('t-1', 0n, { ...tenant });
    expect(stored.created_at_ms).toBe(Date.UTC(2024, 4, 1, 10));
    expect(meiliTenantsCollection.fromDocument(stored)).toEqual(tenant);
  });
});

describe('tenantFilter', () => {
  it.each([
    ['c0ffee00-0000-4000-8000-000000000001', 'tenant_id = "c0ffee00-0000-4000-8000-000000000001"'],
    ['a" OR tenant_id != "b', 'tenant_id = "a\\" OR tenant_id != \\"b"'],
    ['a\\', 'tenant_id = "a\\\\"'],
  ])('keeps %j one quoted value', (tenantId, filter) => {
    expect(tenantFilter(tenantId)).toBe(filter);
  });
});
