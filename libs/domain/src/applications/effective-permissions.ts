import type { ApplicationSettings } from './application.events';

/** What the permission guard checks: the application's own permissions plus those its access rules grant. */
export function effectivePermissions(app: Pick<ApplicationSettings, 'permissions' | 'rules'>): Set<string> {
  const all = new Set(app.permissions);
  for (const rule of app.rules) for (const permission of rule.permissions) all.add(permission);
  return all;
}
