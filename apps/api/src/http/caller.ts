// The authenticated caller of a request, for controllers, and the UUID check for path ids.
import { applyDecorators, createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { Caller, currentRequestContext } from '@vault/application';
import { isUuid, validationError } from '@vault/domain';
import type { AuthenticatedRequest } from './access.guard';
import { ApiProblem } from './problem';

export type { Caller };

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  return { principal: request.principal, now: new Date(), requestId: currentRequestContext()?.requestId ?? 'none' };
});

const NOT_A_UUID = 'The id in the path is not a UUID.';
const ID_ERRORS = { id: ['id must be a UUID'] };

@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isUuid(value)) throw validationError(ID_ERRORS, NOT_A_UUID);
    return value.toLowerCase();
  }
}

/** The OpenAPI side of `@Param('id', UuidPipe)`: the `{id}` of `what`, and the 400 for one that is not a UUID. */
export const ApiIdParam = (what: string) =>
  applyDecorators(
    ApiParam({ name: 'id', description: `The ${what}'s id`, schema: { type: 'string', format: 'uuid' } }),
    ApiProblem(400, 'The `id` in the path is not a UUID.', NOT_A_UUID, ID_ERRORS),
  );
