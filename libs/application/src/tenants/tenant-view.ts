// A tenant as GET /tenants/self shows it: the read model's document without its tombstone flag.
import type { TenantDocument } from '../ports/read-models';

export type TenantView = Omit<TenantDocument, 'deleted'>;

export const tenantView = ({ id, name, created_by, created_at, modified_by, modified_at }: TenantDocument): TenantView => ({
  id,
  name,
  created_by,
  created_at,
  ...(modified_by === undefined ? {} : { modified_by, modified_at }),
});
