import type { AccessRule, Actor, ApplicationType, CommandContext } from '@vault/domain';

/** The authenticated caller of a request. */
export interface Principal {
  applicationId: string;
  tenantId: string;
  type: ApplicationType;
  permissions: ReadonlySet<string>;
  rawPermissions: readonly string[];
  rules: readonly AccessRule[];
}

export const actorOf = (principal: Principal): Actor => ({ type: 'application', id: principal.applicationId });

export const contextFor = (principal: Principal, now: Date, correlationId: string): CommandContext => ({
  tenantId: principal.tenantId,
  actor: actorOf(principal),
  now,
  correlationId,
});
