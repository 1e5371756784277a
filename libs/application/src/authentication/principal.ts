import type { AccessRule, Actor, ApplicationType, CommandContext } from '@vault/domain';

/** The authenticated caller of a request. */
export interface Principal {
  applicationId: string;
  tenantId: string;
  type: ApplicationType;
  permissions: ReadonlySet<string>;
  /**
   * The access rules that decide what the caller sees of each token, in the order they are tried: the application's
   * own, or (without any) one mask rule on `/` with its token permissions. Computed once, at authentication.
   */
  accessRules: readonly AccessRule[];
}

export const actorOf = (principal: Principal): Actor => ({ type: 'application', id: principal.applicationId });

export const contextFor = (principal: Principal, now: Date, correlationId: string): CommandContext => ({
  tenantId: principal.tenantId,
  actor: actorOf(principal),
  now,
  correlationId,
});
