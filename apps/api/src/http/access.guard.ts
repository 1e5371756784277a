// Authenticates SVC-API-KEY, rate-limits per key and checks the route's permission.
import { CanActivate, ExecutionContext, HttpException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Authenticator, Principal } from '@vault/application';
import { DomainError } from '@vault/domain';
import { VaultMetrics } from '@vault/nest';
import { ACCESS, Access, API_KEY_HEADER, lacksPermission, RATE_LIMITED } from './access.decorators';
import { problem } from './problem';
import { API_KEY_RATE_LIMITER, RateLimiter } from './rate-limiter';

export type AuthenticatedRequest = Request & { principal: Principal };

/** Node lower-cases the names of request headers. */
const KEY_HEADER = API_KEY_HEADER.toLowerCase();

@Injectable()
export class AccessGuard implements CanActivate {
  private readonly limiter: RateLimiter;
  /** Each route handler's declared access, read from its metadata once rather than on every request. */
  private readonly accessOf = new WeakMap<object, Access | undefined>();

  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    @Inject(API_KEY_RATE_LIMITER) limiter: RateLimiter,
    private readonly metrics: VaultMetrics,
  ) {
    this.limiter = limiter;
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    if (!this.accessOf.has(handler)) this.accessOf.set(handler, this.reflector.getAllAndOverride<Access | undefined>(ACCESS, [handler, context.getClass()]));
    const access = this.accessOf.get(handler);
    if (!access) throw new Error(`Route ${context.getClass().name}.${context.getHandler().name} declares no access`);
    if (access.kind === 'public') return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers[KEY_HEADER];
    const principal = await this.authenticator.authenticate(typeof header === 'string' ? header : undefined);
    request.principal = principal;
    const wait = this.limiter.take(principal.applicationId);
    if (wait > 0) {
      this.metrics.rateLimited();
      throw new HttpException({ ...problem(429, RATE_LIMITED), retryAfter: wait }, 429);
    }
    if (access.kind === 'permission' && !principal.permissions.has(access.permission)) {
      throw new DomainError('forbidden', lacksPermission(access.permission));
    }
    return true;
  }
}
