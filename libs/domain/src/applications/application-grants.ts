// Who may grant what: management permissions only by their holders,
// token permissions by anyone allowed to create or update applications.
import { DomainError } from '../shared/errors';
import { MANAGEMENT_PERMISSIONS, PERMISSIONS } from '../permissions/permission-catalogue';
import { effectivePermissions } from './effective-permissions';
import type { ApplicationSettings } from './application.events';

/** What the operator CLI and the development bootstrap act with: they stand above every tenant's applications. */
export const OPERATOR_PERMISSIONS: readonly string[] = Object.freeze(PERMISSIONS.map((p) => p.type));

/** The management permissions among `wanted` that `caller` does not hold, in catalogue order. */
export function missingManagementPermissions(wanted: Iterable<string>, caller: Iterable<string>): string[] {
  const asked = new Set(wanted);
  const held = new Set(caller);
  return MANAGEMENT_PERMISSIONS.filter((p) => asked.has(p) && !held.has(p));
}

/** Creating or updating: every management permission the new settings hold must be one the caller holds. */
export function requireGrantable(settings: Pick<ApplicationSettings, 'permissions'>, caller: readonly string[]): void {
  const missing = missingManagementPermissions(settings.permissions, caller);
  if (missing.length === 0) return;
  const errors: Record<string, string[]> = {};
  settings.permissions.forEach((permission, i) => {
    if (missing.includes(permission)) errors[`permissions[${i}]`] = [`the caller does not hold "${permission}", so it cannot grant it`];
  });
  throw new DomainError('forbidden', `Only holders of a management permission may grant it; the caller lacks ${missing.join(', ')}.`, errors);
}

/** Updating, regenerating or deleting: the target's management permissions must be a subset of the caller's. */
export function requireNoMorePowerful(
  target: Pick<ApplicationSettings, 'permissions' | 'rules'>,
  caller: readonly string[],
  action: 'update' | 'regenerate the key of' | 'delete',
): void {
  const missing = missingManagementPermissions(effectivePermissions(target), caller);
  if (missing.length === 0) return;
  throw new DomainError(
    'forbidden',
    `The caller cannot ${action} an application holding management permissions it lacks: ${missing.join(', ')}.`,
  );
}
