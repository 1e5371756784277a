// The configuration or request-parameter contract of a formula, one row per element; errors by `<list>[i].<field>`.
import type { FieldErrors } from '../../api';
import { Field, FieldMessages } from '../../ui/field';
import type { ContractElement } from './formula-types';

export function ContractEditor(props: {
  legend: string;
  name: 'configuration' | 'request_parameters';
  hint: string;
  elements: ContractElement[];
  onChange: (elements: ContractElement[]) => void;
  errors?: FieldErrors;
  withOptional?: boolean;
}) {
  const update = (index: number, change: Partial<ContractElement>) =>
    props.onChange(props.elements.map((element, i) => (i === index ? { ...element, ...change } : element)));
  const listErrors = props.errors?.[props.name] ?? [];
  const singular = props.name === 'configuration' ? 'setting' : 'parameter';
  return (
    <fieldset class="field">
      <legend>{props.legend}</legend>
      <p class="hint">{props.hint}</p>
      <div class="rows">
        {props.elements.map((element, index) => (
          <div class="row-item" key={index} role="group" aria-label={`${props.legend} ${index + 1}`}>
            <Field label="Name" name={`${props.name}[${index}].name`} errors={props.errors}>
              {(control) => <input {...control} class="code" value={element.name} onInput={(e) => update(index, { name: e.currentTarget.value })} />}
            </Field>
            <Field label="Type" name={`${props.name}[${index}].type`} errors={props.errors}>
              {(control) => (
                <select {...control} value={element.type} onChange={(e) => update(index, { type: e.currentTarget.value as ContractElement['type'] })}>
                  <option value="string">string</option>
                  <option value="number">number</option>
                  <option value="boolean">boolean</option>
                </select>
              )}
            </Field>
            <Field label="Description" name={`${props.name}[${index}].description`} errors={props.errors}>
              {(control) => <input {...control} value={element.description ?? ''} onInput={(e) => update(index, { description: e.currentTarget.value })} />}
            </Field>
            {props.withOptional ? (
              <div class="field check">
                <input
                  id={`${props.name}-${index}-optional`}
                  type="checkbox"
                  checked={!!element.optional}
                  onChange={(e) => update(index, { optional: e.currentTarget.checked })}
                />
                <label for={`${props.name}-${index}-optional`}>Optional</label>
              </div>
            ) : (
              <span />
            )}
            <button type="button" class="small danger" onClick={() => props.onChange(props.elements.filter((_, i) => i !== index))}>
              Remove {singular} {index + 1}
            </button>
            <RowErrors errors={props.errors} prefix={`${props.name}[${index}]`} />
          </div>
        ))}
      </div>
      {listErrors.length > 0 && <FieldMessages messages={listErrors} />}
      <div>
        <button type="button" onClick={() => props.onChange([...props.elements, { name: '', type: 'string', ...(props.withOptional ? { optional: false } : {}) }])}>
          Add a {singular}
        </button>
      </div>
    </fieldset>
  );
}

/** A row's errors that no field of the row shows (the element itself, `optional`): under the row, with their names. */
function RowErrors(props: { errors?: FieldErrors; prefix: string }) {
  const shown = ['name', 'type', 'description'].map((field) => `${props.prefix}.${field}`);
  const rest = Object.entries(props.errors ?? {}).filter(
    ([key]) => (key === props.prefix || key.startsWith(`${props.prefix}.`)) && !shown.some((field) => key === field || key.startsWith(`${field}.`)),
  );
  if (rest.length === 0) return null;
  return <FieldMessages messages={rest.flatMap(([key, messages]) => messages.map((message) => `${key}: ${message}`))} />;
}
