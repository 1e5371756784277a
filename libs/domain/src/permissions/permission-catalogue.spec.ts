import { APPLICATION_TYPES, PERMISSIONS, permissionsFor } from './permission-catalogue';

describe('permission catalogue', () => {
  it('has the 30 rows of the catalogue, each type once', () => {
    expect(PERMISSIONS).toHaveLength(30);
    expect(new Set(PERMISSIONS.map((p) => p.type)).size).toBe(30);
  });

  it.each([
    ['public', ['token:create', 'token:update']],
    ['private', ['token:create', 'token:update', 'token:read', 'token:search', 'token:delete', 'token:use']],
    ['expiring', ['token:read']],
  ] as const)('gives %s applications exactly %j', (type, expected) => {
    expect(permissionsFor(type).map((p) => p.type)).toEqual(expected);
  });

  it('gives management applications the 24 non-token permissions', () => {
    const management = permissionsFor('management').map((p) => p.type);
    expect(management).toHaveLength(24);
    expect(management.some((t) => t.startsWith('token:'))).toBe(false);
  });

  it('only names known application types', () => {
    for (const p of PERMISSIONS) for (const t of p.application_types) expect(APPLICATION_TYPES).toContain(t);
  });
});
