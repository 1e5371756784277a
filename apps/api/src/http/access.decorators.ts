// Every route declares its access: a permission, "any valid key", or public. The guard refuses routes that declare none.
import { SetMetadata } from '@nestjs/common';

export const ACCESS = 'vault:access';

export type Access = { kind: 'permission'; permission: string } | { kind: 'authenticated' } | { kind: 'public' };

export const RequirePermission = (permission: string) => SetMetadata(ACCESS, { kind: 'permission', permission } satisfies Access);
export const Authenticated = () => SetMetadata(ACCESS, { kind: 'authenticated' } satisfies Access);
export const Public = () => SetMetadata(ACCESS, { kind: 'public' } satisfies Access);
