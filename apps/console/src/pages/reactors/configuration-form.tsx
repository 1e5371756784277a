// The configuration form a formula's contract describes: a text, number or checkbox field per element.
import type { FieldErrors } from '../../api';
import { Field, FieldSet } from '../../ui/field';
import type { ContractElement } from '../formulas/formula-types';

export type ConfigurationValues = Record<string, string | boolean>;

/** The values as the API takes them: numbers as numbers, booleans as booleans, empty strings left out. */
export function configurationBody(contract: ContractElement[], values: ConfigurationValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const element of contract) {
    const value = values[element.name];
    if (element.type === 'boolean') body[element.name] = value === true;
    else if (value === undefined || value === '') continue;
    else body[element.name] = element.type === 'number' ? Number(value) : String(value);
  }
  return body;
}

export function initialValues(contract: ContractElement[], existing?: Record<string, unknown>): ConfigurationValues {
  return Object.fromEntries(
    contract.map((element) => {
      const value = existing?.[element.name];
      return [element.name, element.type === 'boolean' ? value === true : value === undefined || value === null ? '' : String(value)];
    }),
  );
}

export function ConfigurationForm(props: {
  contract: ContractElement[];
  values: ConfigurationValues;
  onChange: (values: ConfigurationValues) => void;
  errors?: FieldErrors;
}) {
  const set = (name: string, value: string | boolean) => props.onChange({ ...props.values, [name]: value });
  return (
    <FieldSet legend="Configuration" name="configuration" errors={onlyOwn(props.errors)} hint="The formula’s settings. Values are kept encrypted.">
      {props.contract.length === 0 && <p class="muted">This formula takes no configuration.</p>}
      {props.contract.map((element) =>
        element.type === 'boolean' ? (
          <div class="field check" key={element.name}>
            <input
              id={`configuration-${element.name}`}
              type="checkbox"
              checked={props.values[element.name] === true}
              onChange={(e) => set(element.name, e.currentTarget.checked)}
            />
            <label for={`configuration-${element.name}`}>{element.name}</label>
            {element.description && <span class="hint"> — {element.description}</span>}
          </div>
        ) : (
          <Field key={element.name} label={element.name} name={`configuration.${element.name}`} errors={props.errors} hint={element.description || `A ${element.type}.`}>
            {(control) =>
              element.type === 'number' ? (
                <input {...control} type="number" step="any" value={String(props.values[element.name] ?? '')} onInput={(e) => set(element.name, e.currentTarget.value)} />
              ) : (
                <input
                  {...control}
                  type="text"
                  autoComplete="off"
                  spellcheck={false}
                  value={String(props.values[element.name] ?? '')}
                  onInput={(e) => set(element.name, e.currentTarget.value)}
                />
              )
            }
          </Field>
        ),
      )}
    </FieldSet>
  );
}

/** Errors on `configuration` itself; those of its members show at their own field. */
const onlyOwn = (errors?: FieldErrors): FieldErrors | undefined =>
  errors && Object.fromEntries(Object.entries(errors).filter(([key]) => key === 'configuration'));
