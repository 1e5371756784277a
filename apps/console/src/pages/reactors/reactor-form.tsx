// Create a reactor from a formula (POST), or change one (PUT): name, configuration, and the application it runs as.
import { useState } from 'preact/hooks';
import { api, enc, Page } from '../../api';
import { Field } from '../../ui/field';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import type { Application } from '../applications/application-types';
import type { Formula } from '../formulas/formula-types';
import { PageHeader } from '../shared';
import { configurationBody, ConfigurationForm, ConfigurationValues, initialValues } from './configuration-form';
import type { Reactor } from './reactor-types';

const FIELDS = ['name', 'formula', 'configuration', 'application'];

export function ReactorNew(props: { formulaId?: string }) {
  const formulas = useLoad(() => api<Page<Formula>>('GET', '/reactor-formulas?size=100'), []);
  return (
    <section>
      <PageHeader title="New reactor" back={{ to: '/reactors', label: 'Reactors' }} />
      <Loader loaded={formulas} what="formulas" forbidden="Reading reactor formulas">
        {(page) =>
          page.data.length === 0 ? (
            <p class="empty">There is no formula to create a reactor from yet. Create a private formula first.</p>
          ) : (
            <ReactorForm formulas={page.data} initialFormula={props.formulaId} />
          )
        }
      </Loader>
    </section>
  );
}

export function ReactorEdit(props: { id: string }) {
  const loaded = useLoad(() => api<Reactor>('GET', `/reactors/${enc(props.id)}`), [props.id]);
  return (
    <section>
      <PageHeader title="Edit reactor" back={{ to: `/reactors/${enc(props.id)}`, label: 'Reactor' }} />
      <Loader loaded={loaded} what="the reactor" forbidden="Reading reactors">
        {(reactor) => <ReactorForm formulas={[reactor.formula]} existing={reactor} />}
      </Loader>
    </section>
  );
}

function ReactorForm(props: { formulas: Formula[]; initialFormula?: string; existing?: Reactor }) {
  const { existing } = props;
  const usable = props.formulas.filter((formula) => formula.status === 'verified');
  const [formulaId, setFormulaId] = useState(existing?.formula.id ?? (usable.some((f) => f.id === props.initialFormula) ? props.initialFormula! : usable[0]?.id ?? ''));
  const formula = props.formulas.find((candidate) => candidate.id === formulaId);
  const [name, setName] = useState(existing?.name ?? '');
  const [values, setValues] = useState<ConfigurationValues>(() => initialValues(formula?.configuration ?? [], existing?.configuration));
  const [application, setApplication] = useState(existing?.application?.id ?? '');
  const applications = useLoad(() => api<Page<Application>>('GET', '/applications?size=100'), []);
  const privateApplications = applications.data?.data.filter((candidate) => candidate.type === 'private');
  const { busy, error, run } = useAction();
  const errors = error?.errors;

  const submit = async () => {
    const body: Record<string, unknown> = {
      name,
      configuration: configurationBody(formula?.configuration ?? [], values),
      ...(application ? { application: { id: application } } : {}),
    };
    const saved = existing
      ? await run(() => api<Reactor>('PUT', `/reactors/${enc(existing.id)}`, { body }))
      : await run(() => api<Reactor>('POST', '/reactors', { body: { ...body, formula: { id: formulaId } } }));
    if (saved) navigate(`/reactors/${saved.id}`);
  };

  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Problem error={error} fields={FIELDS} action={existing ? 'update reactors' : 'create reactors'} />
      <Field label="Formula" name="formula" errors={errors} hint={existing ? 'A reactor keeps its formula.' : 'Verified formulas only.'}>
        {(control) => (
          <select
            {...control}
            value={formulaId}
            disabled={!!existing}
            onChange={(e) => {
              const next = props.formulas.find((candidate) => candidate.id === e.currentTarget.value);
              setFormulaId(e.currentTarget.value);
              setValues(initialValues(next?.configuration ?? []));
            }}
          >
            {(existing ? props.formulas : usable).map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name} ({candidate.type})
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Name" name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      {formula && <ConfigurationForm contract={formula.configuration} values={values} onChange={setValues} errors={errors} />}
      <Field
        label="Application"
        name="application"
        errors={errors}
        hint="The private application whose rules tokenize the reactor’s results. None: the caller’s."
      >
        {(control) =>
          privateApplications ? (
            <select {...control} value={application} onChange={(e) => setApplication(e.currentTarget.value)}>
              <option value="">None: the caller</option>
              {privateApplications.map((candidate) => (
                <option key={candidate.id} value={candidate.id}>
                  {candidate.name}
                </option>
              ))}
            </select>
          ) : (
            <input {...control} class="code" placeholder="application id (optional)" value={application} onInput={(e) => setApplication(e.currentTarget.value.trim())} />
          )
        }
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !formulaId}>
          {busy ? 'Saving…' : existing ? 'Save reactor' : 'Create reactor'}
        </button>
      </div>
    </form>
  );
}
