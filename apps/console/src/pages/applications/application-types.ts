export interface Rule {
  description?: string;
  priority: number;
  container: string;
  transform: 'mask' | 'redact' | 'reveal';
  permissions: string[];
}

export interface Application {
  id: string;
  tenant_id: string;
  name: string;
  type: string;
  permissions: string[];
  rules: Rule[];
  expires_at?: string;
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
  /** Only in the answer to a create or a regenerate. */
  key?: string;
}

export interface Permission {
  type: string;
  description: string;
  application_types: string[];
}

export const APPLICATION_TYPES: Array<[string, string]> = [
  ['private', 'private: a backend service'],
  ['public', 'public: a browser or mobile client that only creates and updates'],
  ['expiring', 'expiring: reads for a limited time'],
  ['management', 'management: manages the tenant'],
];

/** Keys just issued, by application id: shown once on the application's page, then forgotten. Never stored. */
export const issuedKeys = new Map<string, string>();

/** The catalogue's groups: `token`, `application`, `tenant:member`… in catalogue order. */
export function groupPermissions(permissions: Permission[]): Array<[string, Permission[]]> {
  const groups = new Map<string, Permission[]>();
  for (const permission of permissions) {
    const group = permission.type.slice(0, permission.type.lastIndexOf(':'));
    groups.set(group, [...(groups.get(group) ?? []), permission]);
  }
  return [...groups];
}
