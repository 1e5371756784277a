// A direction's transforms, applied in order: code, tokenize (fields as JSON) or mask (JSON paths, one a line).
import type { FieldErrors } from '../../api';
import { CodeEditor } from '../../ui/code-editor';
import { Field } from '../../ui/field';

/** The editor's form of a transform: its fields as the user types them, turned into the API's shape on save. */
export interface TransformDraft {
  type: 'code' | 'tokenize' | 'mask';
  code: string;
  fields: string;
}

const CODE_STARTER = `module.exports = async function (req) {
  const { body, headers } = req.args;
  return { body, headers };
};
`;
const TOKENIZE_STARTER = `[{ "json_path": "$.card.number", "token": { "type": "card_number" } }]`;

export function TransformsEditor(props: {
  legend: string;
  name: 'request_transforms' | 'response_transforms';
  transforms: TransformDraft[];
  onChange: (transforms: TransformDraft[]) => void;
  errors?: FieldErrors;
}) {
  const update = (index: number, change: Partial<TransformDraft>) =>
    props.onChange(props.transforms.map((transform, i) => (i === index ? { ...transform, ...change } : transform)));
  return (
    <fieldset class="field">
      <legend>{props.legend}</legend>
      {props.transforms.length === 0 && <p class="hint">None: the body passes as it is.</p>}
      <div class="rows">
        {props.transforms.map((transform, index) => {
          const at = `${props.name}[${index}]`;
          return (
            <div class="rule" key={index} role="group" aria-label={`${props.legend} ${index + 1}`}>
              <div class="rule-head">
                <strong>
                  {index + 1}. {transform.type}
                </strong>
                <button type="button" class="small danger" onClick={() => props.onChange(props.transforms.filter((_, i) => i !== index))}>
                  Remove transform {index + 1}
                </button>
              </div>
              <Field label="Type" name={`${at}.type`} errors={props.errors}>
                {(control) => (
                  <select
                    {...control}
                    value={transform.type}
                    onChange={(e) => {
                      const type = e.currentTarget.value as TransformDraft['type'];
                      update(index, { type, fields: type === 'tokenize' ? TOKENIZE_STARTER : type === 'mask' ? '$.card.number' : '' });
                    }}
                  >
                    <option value="code">code: JavaScript in the sandbox</option>
                    <option value="tokenize">tokenize: JSON fields become tokens</option>
                    <option value="mask">mask: JSON fields masked</option>
                  </select>
                )}
              </Field>
              {transform.type === 'code' && (
                <Field label="Code" name={`${at}.code`} errors={props.errors} hint="Gets { args: { body, headers, method, path, query }, configuration }; returns { body, headers }.">
                  {(control) => <CodeEditor {...control} rows={8} value={transform.code} onChange={(code) => update(index, { code })} />}
                </Field>
              )}
              {transform.type === 'tokenize' && (
                <Field label="Fields (JSON)" name={`${at}.fields`} errors={props.errors} hint="Each: a json_path and the token to create from what it finds.">
                  {(control) => <CodeEditor {...control} rows={4} value={transform.fields} onChange={(fields) => update(index, { fields })} />}
                </Field>
              )}
              {transform.type === 'mask' && (
                <Field label="JSON paths" name={`${at}.fields`} errors={props.errors} hint="One a line; each string found keeps its last four characters.">
                  {(control) => (
                    <textarea {...control} class="code" rows={3} value={transform.fields} onInput={(e) => update(index, { fields: e.currentTarget.value })} />
                  )}
                </Field>
              )}
            </div>
          );
        })}
      </div>
      <div>
        <button type="button" disabled={props.transforms.length >= 10} onClick={() => props.onChange([...props.transforms, { type: 'code', code: CODE_STARTER, fields: '' }])}>
          Add a transform
        </button>
      </div>
    </fieldset>
  );
}
