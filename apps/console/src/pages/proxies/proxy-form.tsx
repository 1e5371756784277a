// Create (POST) and edit (PUT) a proxy: destination, transforms each way, configuration, application, key rule.
import { useState } from 'preact/hooks';
import { api, enc, FieldErrors, Page } from '../../api';
import { CodeEditor } from '../../ui/code-editor';
import { Field } from '../../ui/field';
import { parseJson } from '../../ui/format';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import type { Application } from '../applications/application-types';
import { PageHeader } from '../shared';
import type { Proxy, Transform } from './proxy-types';
import { TransformDraft, TransformsEditor } from './transforms-editor';

const FIELDS = ['name', 'destination_url', 'require_auth', 'application', 'configuration', 'request_transforms', 'response_transforms'];

export function ProxyNew() {
  return (
    <section>
      <PageHeader title="New proxy" back={{ to: '/proxies', label: 'Proxies' }} />
      <ProxyForm />
    </section>
  );
}

export function ProxyEdit(props: { id: string }) {
  const loaded = useLoad(() => api<Proxy>('GET', `/proxies/${enc(props.id)}`), [props.id]);
  return (
    <section>
      <PageHeader title="Edit proxy" back={{ to: `/proxies/${enc(props.id)}`, label: 'Proxy' }} />
      <Loader loaded={loaded} what="the proxy" forbidden="Reading proxies">
        {(proxy) => <ProxyForm existing={proxy} />}
      </Loader>
    </section>
  );
}

const draftOf = (transform: Transform): TransformDraft =>
  transform.type === 'code'
    ? { type: 'code', code: transform.code, fields: '' }
    : transform.type === 'tokenize'
      ? { type: 'tokenize', code: '', fields: JSON.stringify(transform.fields, null, 2) }
      : { type: 'mask', code: '', fields: transform.fields.join('\n') };

/** The drafts in the API's shape, or the errors of the JSON that did not parse, by the field the API would name. */
function transformsOf(name: string, drafts: TransformDraft[]): { transforms: Transform[]; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const transforms = drafts.map((draft, index): Transform => {
    if (draft.type === 'code') return { type: 'code', code: draft.code };
    if (draft.type === 'mask') return { type: 'mask', fields: draft.fields.split('\n').map((line) => line.trim()).filter(Boolean) };
    const parsed = parseJson(draft.fields, `${name}[${index}].fields`);
    Object.assign(errors, parsed.errors);
    return { type: 'tokenize', fields: (parsed.value ?? []) as Extract<Transform, { type: 'tokenize' }>['fields'] };
  });
  return { transforms, errors };
}

function ProxyForm(props: { existing?: Proxy }) {
  const { existing } = props;
  const [name, setName] = useState(existing?.name ?? '');
  const [destination, setDestination] = useState(existing?.destination_url ?? '');
  const [requireAuth, setRequireAuth] = useState(existing?.require_auth ?? true);
  const [application, setApplication] = useState(existing?.application?.id ?? '');
  const [configuration, setConfiguration] = useState(existing?.configuration ? JSON.stringify(existing.configuration, null, 2) : '{}');
  const [requestTransforms, setRequestTransforms] = useState<TransformDraft[]>((existing?.request_transforms ?? []).map(draftOf));
  const [responseTransforms, setResponseTransforms] = useState<TransformDraft[]>((existing?.response_transforms ?? []).map(draftOf));
  const [local, setLocal] = useState<FieldErrors>();
  const applications = useLoad(() => api<Page<Application>>('GET', '/applications?size=100'), []);
  const privateApplications = applications.data?.data.filter((candidate) => candidate.type === 'private');
  const { busy, error, run } = useAction();
  const errors = local ?? error?.errors;

  const submit = async () => {
    const config = parseJson(configuration, 'configuration');
    const outbound = transformsOf('request_transforms', requestTransforms);
    const inbound = transformsOf('response_transforms', responseTransforms);
    const problems = { ...config.errors, ...outbound.errors, ...inbound.errors };
    if (Object.keys(problems).length) return setLocal(problems);
    setLocal(undefined);
    const body = {
      name,
      destination_url: destination,
      require_auth: requireAuth,
      configuration: config.value ?? {},
      request_transforms: outbound.transforms,
      response_transforms: inbound.transforms,
      ...(application ? { application: { id: application } } : {}),
    };
    const saved = existing
      ? await run(() => api<Proxy>('PUT', `/proxies/${enc(existing.id)}`, { body }))
      : await run(() => api<Proxy>('POST', '/proxies', { body }));
    if (saved) navigate(`/proxies/${saved.id}`);
  };

  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Problem error={error} fields={FIELDS} action={existing ? 'update proxies' : 'create proxies'} />
      <Field label="Name" name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Destination URL" name="destination_url" errors={errors} hint="http: or https:, on a host the operator allows. The invocation’s path and query are appended.">
        {(control) => <input {...control} type="url" class="code" required value={destination} onInput={(e) => setDestination(e.currentTarget.value)} />}
      </Field>
      <div class="field check">
        <input id="proxy-require-auth" type="checkbox" checked={requireAuth} onChange={(e) => setRequireAuth(e.currentTarget.checked)} />
        <label for="proxy-require-auth">Require an API key (SVC-API-KEY) to invoke; without one, nothing is detokenized</label>
      </div>
      <Field label="Application" name="application" errors={errors} hint="The private application that tokenize transforms create tokens as (required with one).">
        {(control) =>
          privateApplications ? (
            <select {...control} value={application} onChange={(e) => setApplication(e.currentTarget.value)}>
              <option value="">None</option>
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
      <Field label="Configuration (JSON object of strings)" name="configuration" errors={errors} hint="Secrets handed to code transforms, kept encrypted.">
        {(control) => <CodeEditor {...control} rows={4} value={configuration} onChange={setConfiguration} />}
      </Field>
      <TransformsEditor legend="Request transforms" name="request_transforms" transforms={requestTransforms} onChange={setRequestTransforms} errors={errors} />
      <TransformsEditor legend="Response transforms" name="response_transforms" transforms={responseTransforms} onChange={setResponseTransforms} errors={errors} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save proxy' : 'Create proxy'}
        </button>
      </div>
    </form>
  );
}
