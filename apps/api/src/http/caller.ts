// The authenticated caller of a request, for controllers, and the UUID check for path ids.
import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { Caller, currentRequestContext } from '@vault/application';
import { isUuid, validationError } from '@vault/domain';
import type { AuthenticatedRequest } from './access.guard';

export type { Caller };

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  return { principal: request.principal, now: new Date(), requestId: currentRequestContext()?.requestId ?? 'none' };
});

@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isUuid(value)) throw validationError({ id: ['id must be a UUID'] }, 'The id in the path is not a UUID.');
    return value.toLowerCase();
  }
}
