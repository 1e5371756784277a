// Revocation is immediate: a request in flight when its caller's key stopped being valid (its tenant deleted, its
// application deleted, its key regenerated, its expiry passed) answers 401 as every later request does. The guard
// refuses new requests; this refuses the answer of one that passed the guard before the change, just before it is sent
// (a tenant key check on the key store every process shares, and the key's application looked up again: a cache hit
// unless some application or tenant changed meanwhile).
import { CallHandler, ExecutionContext, Inject, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { catchError, from, mergeMap, Observable, throwError } from 'rxjs';
import { Authenticator } from '@vault/application';
import { DomainError, tenantDeletedError } from '@vault/domain';
import type { TenantKeys } from '@vault/application';
import { TENANT_KEYS } from '@vault/nest';
import type { AuthenticatedRequest } from './access.guard';

const EXEMPT = 'vault:answers-after-revocation';

/** How a route may still answer its own caller once the caller's key is revoked. */
type Exemption = 'tenant-deletion' | 'own-application';

/** The route that deletes the tenant answers its own caller (204) after the tenant is gone. */
export const AnswersAfterTenantDeletion = () => SetMetadata(EXEMPT, 'tenant-deletion' satisfies Exemption);

/**
 * A route that revokes the key of the application in its path (regenerate, delete) answers a caller revoking its own
 * key: the new key, or the 204, is what it asked for.
 */
export const AnswersAfterOwnRevocation = () => SetMetadata(EXEMPT, 'own-application' satisfies Exemption);

const revoked = () => new DomainError('unauthenticated', 'The API key is not valid.');

@Injectable()
export class CallerLivenessInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    @Inject(TENANT_KEYS) private readonly tenantKeys: TenantKeys,
  ) {}

  /** Per route handler, its exemption: read from its metadata once. */
  private readonly exemptions = new WeakMap<object, Exemption | null>();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handler = context.getHandler();
    let exemption = this.exemptions.get(handler);
    if (exemption === undefined) this.exemptions.set(handler, (exemption = this.reflector.get<Exemption | undefined>(EXEMPT, handler) ?? null));
    if (exemption === 'tenant-deletion') return next.handle();
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const principal = request.principal;
    if (principal === undefined) return next.handle();
    const ownApplication = exemption === 'own-application' && String(request.params?.id ?? '').toLowerCase() === principal.applicationId;
    /** The error the answer becomes, or null when the caller is still who it was. */
    const revocation = async (): Promise<DomainError | null> => {
      if (this.tenantKeys.isTenantKeyDestroyed(principal.tenantId)) return tenantDeletedError();
      if (ownApplication) return null;
      const header = request.headers['svc-api-key'];
      return (await this.authenticator.stillAuthenticates(typeof header === 'string' ? header : undefined, principal)) ? null : revoked();
    };
    return next.handle().pipe(
      mergeMap((value) =>
        from(
          revocation().then((error) => {
            if (error) throw error;
            return value;
          }),
        ),
      ),
      // A failure caused by the revocation (a token purged with its tenant is a 404) is the same 401.
      catchError((error: unknown) => from(revocation()).pipe(mergeMap((revokedError) => throwError(() => revokedError ?? error)))),
    );
  }
}
