// Every route declares its access: a permission, "any valid key", or public. The guard refuses routes that declare none.
// Each declaration also tells the OpenAPI document what follows from it: whether a key is needed, and the guard's errors.
import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension, DECORATORS } from '@nestjs/swagger';
import { ApiProblem } from './problem';

export const ACCESS = 'vault:access';

/** The header that carries the API key (the security scheme `apiKey` of the OpenAPI document). */
export const API_KEY_HEADER = 'SVC-API-KEY';

export type Access = { kind: 'permission'; permission: string } | { kind: 'authenticated' } | { kind: 'public' };

export const RATE_LIMITED = 'Rate limit exceeded for this API key.';
export const lacksPermission = (permission: string) => `The application lacks the ${permission} permission.`;

/** The guard's answers to a key it does not accept, or that is over its rate. */
const keyErrors = () =>
  applyDecorators(
    ApiProblem(401, `The ${API_KEY_HEADER} header is missing, or its key is unknown, revoked or expired.`, 'The API key is not valid.'),
    ApiProblem(429, 'Over the rate limit of this API key; retry after `Retry-After` seconds.', RATE_LIMITED, undefined, {
      'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } },
    }),
  );

export const RequirePermission = (permission: string) =>
  applyDecorators(
    SetMetadata(ACCESS, { kind: 'permission', permission } satisfies Access),
    ApiExtension('x-permission', permission),
    keyErrors(),
    ApiProblem(403, `The key's application lacks the \`${permission}\` permission.`, lacksPermission(permission)),
  );

export const Authenticated = () => applyDecorators(SetMetadata(ACCESS, { kind: 'authenticated' } satisfies Access), keyErrors());

/** A public handler needs no key: `security: []` on its operation, merged with whatever @ApiOperation says. */
const NoKeyNeeded = (_target: object, _key?: string | symbol, descriptor?: PropertyDescriptor): void => {
  // On a controller class there is no one operation to mark; test/e2e/openapi.spec.ts finds the route documented wrong.
  if (!descriptor) return;
  const operation: object | undefined = Reflect.getMetadata(DECORATORS.API_OPERATION, descriptor.value);
  Reflect.defineMetadata(DECORATORS.API_OPERATION, { ...operation, security: [] }, descriptor.value);
};

export const Public = () => applyDecorators(SetMetadata(ACCESS, { kind: 'public' } satisfies Access), NoKeyNeeded);
