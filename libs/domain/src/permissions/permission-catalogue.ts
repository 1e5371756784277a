// The permission catalogue, row for row and in its published order: GET /permissions serves exactly this.

export const APPLICATION_TYPES = ['public', 'private', 'expiring', 'management'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

export interface Permission {
  type: string;
  description: string;
  application_types: ApplicationType[];
}

const row = (type: string, description: string, ...application_types: ApplicationType[]): Permission => ({
  type,
  description,
  application_types,
});

export const PERMISSIONS: readonly Permission[] = Object.freeze([
  row('token:create', 'Create tokens', 'public', 'private'),
  row('token:update', 'Update tokens', 'public', 'private'),
  row('token:read', 'Read tokens', 'private', 'expiring'),
  row('token:search', 'Search tokens', 'private'),
  row('token:delete', 'Delete tokens', 'private'),
  row('token:use', "Use tokens in the service's own services (for example proxy, reactors)", 'private'),
  row('tenant:read', 'Read tenants', 'management'),
  row('tenant:update', 'Update tenants', 'management'),
  row('tenant:delete', 'Delete tenants', 'management'),
  row('application:read', 'Read applications', 'management'),
  row('application:create', 'Create applications', 'management'),
  row('application:update', 'Update applications and regenerate API keys', 'management'),
  row('application:delete', 'Delete applications', 'management'),
  row('log:read', 'Read audit logs', 'management'),
  row('reactor:read', 'Read reactor formulas and reactors', 'management'),
  row('reactor:create', 'Create reactor formulas and reactors', 'management'),
  row('reactor:update', 'Update reactor formulas and reactors', 'management'),
  row('reactor:delete', 'Delete reactor formulas and reactors', 'management'),
  row('proxy:read', 'Read proxies', 'management'),
  row('proxy:create', 'Create proxies', 'management'),
  row('proxy:update', 'Update proxies', 'management'),
  row('proxy:delete', 'Delete proxies', 'management'),
  row('tenant:member:read', 'Read tenant members', 'management'),
  row('tenant:member:update', 'Update tenant members', 'management'),
  row('tenant:member:delete', 'Delete tenant members', 'management'),
  row('tenant:invitation:create', 'Create tenant invitations', 'management'),
  row('tenant:invitation:read', 'Read tenant invitations', 'management'),
  row('tenant:invitation:update', 'Update tenant invitations', 'management'),
  row('tenant:invitation:delete', 'Delete tenant invitations', 'management'),
  row('report:read', 'Read reports', 'management'),
]);

const byType = new Map(PERMISSIONS.map((p) => [p.type, p]));

export const findPermission = (type: string): Permission | undefined => byType.get(type);

export const permissionsFor = (applicationType: ApplicationType): Permission[] =>
  PERMISSIONS.filter((p) => p.application_types.includes(applicationType));

export const isApplicationType = (value: unknown): value is ApplicationType =>
  typeof value === 'string' && (APPLICATION_TYPES as readonly string[]).includes(value);

export const isTokenPermission = (type: string): boolean => type.startsWith('token:') && byType.has(type);

export const MANAGEMENT_PERMISSIONS: readonly string[] = permissionsFor('management').map((p) => p.type);
