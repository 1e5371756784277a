// API.md "Tenants": every key of a deleted tenant answers 401 from then on, a request already in flight included. The
// guard refuses new requests; this refuses the answer of one that passed the guard before the deletion was durable,
// just before it is sent (the tenant key check is one point query on the key store that every process shares).
import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { catchError, map, Observable, throwError } from 'rxjs';
import { tenantDeletedError, type TenantKeys } from '@vault/domain';
import { TENANT_KEYS } from '@vault/nest';
import type { AuthenticatedRequest } from './access.guard';

const AFTER_DELETION = 'vault:answers-after-tenant-deletion';

/** The route that deletes the tenant answers its own caller (204) after the tenant is gone. */
export const AnswersAfterTenantDeletion = () => SetMetadata(AFTER_DELETION, true);

@Injectable()
export class TenantLivenessInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(TENANT_KEYS) private readonly tenantKeys: TenantKeys,
  ) {}

  /** Per route handler, whether it answers after the deletion: read from its metadata once. */
  private readonly answersAfterDeletion = new WeakMap<object, boolean>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = context.getHandler();
    let exempt = this.answersAfterDeletion.get(handler);
    if (exempt === undefined) this.answersAfterDeletion.set(handler, (exempt = this.reflector.get<boolean | undefined>(AFTER_DELETION, handler) === true));
    if (exempt) return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const deleted = () => request.principal?.tenantId !== undefined && this.tenantKeys.isTenantKeyDestroyed(request.principal.tenantId);
    return next.handle().pipe(
      map((value) => {
        if (deleted()) throw tenantDeletedError();
        return value;
      }),
      // A failure caused by the deletion (a token purged mid-request is a 404) is the same 401.
      catchError((error: unknown) => throwError(() => (deleted() ? tenantDeletedError() : error))),
    );
  }
}
