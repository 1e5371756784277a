// Access rules: priority, container, transform and token permissions, one card each; errors by `rules[i].field`.
import type { FieldErrors } from '../../api';
import { Field } from '../../ui/field';
import { PermissionPicker } from './permission-picker';
import type { Permission, Rule } from './application-types';

export function RulesEditor(props: { rules: Rule[]; onChange: (rules: Rule[]) => void; tokenPermissions: Permission[]; errors?: FieldErrors }) {
  const update = (index: number, change: Partial<Rule>) => props.onChange(props.rules.map((rule, i) => (i === index ? { ...rule, ...change } : rule)));
  const nextPriority = Math.max(0, ...props.rules.map((rule) => Number(rule.priority) || 0)) + 1;
  return (
    <fieldset class="field">
      <legend>Access rules</legend>
      <p class="hint">
        For each token, the first rule (by priority) whose container holds the token and that grants the permission in play decides how its data is
        shown. Without rules, the permissions apply on <code>/</code> with the mask.
      </p>
      <div class="rows">
        {props.rules.map((rule, index) => (
          <div class="rule" key={index} role="group" aria-label={`Rule ${index + 1}`}>
            <div class="rule-head">
              <strong>Rule {index + 1}</strong>
              <button type="button" class="small danger" onClick={() => props.onChange(props.rules.filter((_, i) => i !== index))}>
                Remove rule {index + 1}
              </button>
            </div>
            <div class="row">
              <Field label="Priority" name={`rules[${index}].priority`} errors={props.errors} class="narrow">
                {(control) => (
                  <input {...control} type="number" min={1} step={1} value={rule.priority} onInput={(e) => update(index, { priority: Number(e.currentTarget.value) })} />
                )}
              </Field>
              <Field label="Container" name={`rules[${index}].container`} errors={props.errors}>
                {(control) => <input {...control} class="code" value={rule.container} placeholder="/pii/" onInput={(e) => update(index, { container: e.currentTarget.value })} />}
              </Field>
              <Field label="Transform" name={`rules[${index}].transform`} errors={props.errors} class="narrow">
                {(control) => (
                  <select {...control} value={rule.transform} onChange={(e) => update(index, { transform: e.currentTarget.value as Rule['transform'] })}>
                    <option value="mask">mask</option>
                    <option value="redact">redact</option>
                    <option value="reveal">reveal</option>
                  </select>
                )}
              </Field>
            </div>
            <Field label="Description" name={`rules[${index}].description`} errors={props.errors}>
              {(control) => <input {...control} value={rule.description ?? ''} onInput={(e) => update(index, { description: e.currentTarget.value })} />}
            </Field>
            <PermissionPicker
              legend={`Rule ${index + 1} permissions`}
              name={`rules[${index}].permissions`}
              catalogue={props.tokenPermissions}
              selected={rule.permissions}
              errors={props.errors}
              onChange={(permissions) => update(index, { permissions })}
            />
          </div>
        ))}
      </div>
      <div>
        <button
          type="button"
          onClick={() => props.onChange([...props.rules, { priority: nextPriority, container: '/', transform: 'mask', permissions: [] }])}
        >
          Add a rule
        </button>
      </div>
    </fieldset>
  );
}
