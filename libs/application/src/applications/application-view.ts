// An application as the API shows it: never its key's hash; its key only in the answer that made it.
import type { ApplicationState } from '@vault/domain';
import type { ApplicationDocument } from '../ports/read-models';

export type ApplicationView = Omit<ApplicationDocument, 'key_hash' | 'modified_by' | 'modified_at'> & {
  modified_by?: string;
  modified_at?: string;
};
export type ApplicationWithKey = ApplicationView & { key: string };

export function toApplicationView(app: ApplicationDocument | ApplicationState): ApplicationView {
  const view: ApplicationView = {
    id: app.id,
    tenant_id: app.tenant_id,
    name: app.name,
    type: app.type,
    permissions: app.permissions,
    rules: app.rules,
    expires_at: app.expires_at,
    created_by: app.created_by,
    created_at: app.created_at,
  };
  if (app.modified_by) view.modified_by = app.modified_by;
  if (app.modified_at) view.modified_at = app.modified_at;
  return view;
}
