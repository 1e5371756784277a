// The authenticated caller of a request, for controllers, and the UUID check for path ids.
import { createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { currentRequestContext, Principal } from '@vault/application';
import { validationError } from '@vault/domain';
import type { AuthenticatedRequest } from './access.guard';

export interface Caller {
  principal: Principal;
  now: Date;
  requestId: string;
}

export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller => {
  const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
  return { principal: request.principal, now: new Date(), requestId: currentRequestContext()?.requestId ?? 'none' };
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class UuidPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!UUID.test(value)) throw validationError({ id: ['id must be a UUID'] }, 'The id in the path is not a UUID.');
    return value.toLowerCase();
  }
}
