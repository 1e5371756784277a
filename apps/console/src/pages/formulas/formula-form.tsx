// Create (POST) and edit (PUT) a private formula: its code in a code editor, and its two contracts.
import { useState } from 'preact/hooks';
import { api, enc } from '../../api';
import { CodeEditor } from '../../ui/code-editor';
import { Field } from '../../ui/field';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import { ContractEditor } from './contract-editor';
import { ContractElement, Formula, STARTER_CODE } from './formula-types';

const FIELDS = ['name', 'description', 'type', 'icon', 'code', 'configuration', 'request_parameters'];

export function FormulaNew() {
  return (
    <section>
      <PageHeader title="New formula" back={{ to: '/reactor-formulas', label: 'Reactor formulas' }} />
      <FormulaForm />
    </section>
  );
}

export function FormulaEdit(props: { id: string }) {
  const loaded = useLoad(() => api<Formula>('GET', `/reactor-formulas/${enc(props.id)}`), [props.id]);
  return (
    <section>
      <PageHeader title="Edit formula" back={{ to: `/reactor-formulas/${enc(props.id)}`, label: 'Formula' }} />
      <Loader loaded={loaded} what="the formula" forbidden="Reading reactor formulas">
        {(formula) => <FormulaForm existing={formula} />}
      </Loader>
    </section>
  );
}

/** Only the element's own fields, in the shape the API takes. */
const contract = (elements: ContractElement[], withOptional: boolean) =>
  elements.map((element) => ({
    name: element.name,
    type: element.type,
    ...(element.description ? { description: element.description } : {}),
    ...(withOptional ? { optional: !!element.optional } : {}),
  }));

function FormulaForm(props: { existing?: Formula }) {
  const { existing } = props;
  const [name, setName] = useState(existing?.name ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [icon, setIcon] = useState(existing?.icon ?? '');
  const [code, setCode] = useState(existing?.code ?? STARTER_CODE);
  const [configuration, setConfiguration] = useState<ContractElement[]>(existing?.configuration ?? []);
  const [parameters, setParameters] = useState<ContractElement[]>(existing?.request_parameters ?? []);
  const { busy, error, run } = useAction();
  const errors = error?.errors;

  const submit = async () => {
    const body = {
      name,
      ...(description ? { description } : {}),
      type: 'private',
      ...(icon ? { icon } : {}),
      code,
      configuration: contract(configuration, false),
      request_parameters: contract(parameters, true),
    };
    const saved = existing
      ? await run(() => api<Formula>('PUT', `/reactor-formulas/${enc(existing.id)}`, { body }))
      : await run(() => api<Formula>('POST', '/reactor-formulas', { body }));
    if (saved) navigate(`/reactor-formulas/${saved.id}`);
  };

  return (
    <form
      class="form wide"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Problem error={error} fields={FIELDS} action={existing ? 'update reactor formulas' : 'create reactor formulas'} />
      <Field label="Name" name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Description" name="description" errors={errors}>
        {(control) => <textarea {...control} rows={2} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      <Field label="Icon" name="icon" errors={errors} hint="Optional: a PNG or JPEG, up to 1 MiB.">
        {(control) => (
          <div class="row">
            {icon && <img src={icon} alt="Current icon" width={32} height={32} />}
            <input
              {...control}
              type="file"
              accept="image/png,image/jpeg"
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                if (!file) return;
                const reader = new FileReader();
                reader.onload = () => setIcon(String(reader.result));
                reader.readAsDataURL(file);
              }}
            />
            {icon && (
              <button type="button" class="small" onClick={() => setIcon('')}>
                Remove icon
              </button>
            )}
          </div>
        )}
      </Field>
      <Field
        label="Code"
        name="code"
        errors={errors}
        hint="JavaScript for Node.js 16: module.exports is an async function of { args, configuration } returning { raw, tokenize }. Tab indents; Escape then Tab leaves the editor."
      >
        {(control) => <CodeEditor {...control} rows={16} value={code} onChange={setCode} />}
      </Field>
      <ContractEditor
        legend="Configuration"
        name="configuration"
        hint="Settings every reactor of this formula gives once (an upstream API key, a mode). Names without dots."
        elements={configuration}
        onChange={setConfiguration}
        errors={errors}
      />
      <ContractEditor
        legend="Request parameters"
        name="request_parameters"
        hint="What each invocation passes in args; dotted names (card.number) reach into objects. Undeclared args pass unchecked."
        elements={parameters}
        onChange={setParameters}
        errors={errors}
        withOptional
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save formula' : 'Create formula'}
        </button>
      </div>
    </form>
  );
}
