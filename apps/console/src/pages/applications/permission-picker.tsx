// Permission checkboxes grouped as the catalogue groups them, offering only what the application's type may hold.
import type { FieldErrors } from '../../api';
import { FieldSet } from '../../ui/field';
import { groupPermissions, Permission } from './application-types';

export function PermissionPicker(props: {
  legend: string;
  name: string;
  catalogue: Permission[];
  selected: string[];
  onChange: (selected: string[]) => void;
  errors?: FieldErrors;
  hint?: string;
}) {
  const toggle = (type: string, on: boolean) =>
    props.onChange(on ? [...props.selected, type] : props.selected.filter((selected) => selected !== type));
  return (
    <FieldSet legend={props.legend} name={props.name} errors={props.errors} hint={props.hint}>
      {props.catalogue.length === 0 && <p class="muted">No permission is available here.</p>}
      {groupPermissions(props.catalogue).map(([group, permissions]) => (
        <div key={group} role="group" aria-label={`${group} permissions`}>
          <p class="group-title">{group}</p>
          <div class="checks">
            {permissions.map((permission) => (
              <label key={permission.type} title={permission.description}>
                <input
                  type="checkbox"
                  checked={props.selected.includes(permission.type)}
                  onChange={(event) => toggle(permission.type, event.currentTarget.checked)}
                />
                <code>{permission.type}</code>
              </label>
            ))}
          </div>
        </div>
      ))}
    </FieldSet>
  );
}
