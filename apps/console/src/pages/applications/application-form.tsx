// Create (POST) and edit (PUT) an application: name, type, permissions of that type, rules, and an expiry.
import { useState } from 'preact/hooks';
import { api, enc } from '../../api';
import { Field } from '../../ui/field';
import { isoFromLocal } from '../../ui/format';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import { Application, APPLICATION_TYPES, issuedKeys, Permission, Rule } from './application-types';
import { PermissionPicker } from './permission-picker';
import { RulesEditor } from './rules-editor';

const FIELDS = ['name', 'type', 'permissions', 'rules', 'expires_at'];

export function ApplicationNew() {
  const catalogue = useLoad(() => api<Permission[]>('GET', '/permissions'), []);
  return (
    <section>
      <PageHeader title="New application" back={{ to: '/applications', label: 'Applications' }} />
      <Loader loaded={catalogue} what="the permission catalogue" forbidden="Reading the permission catalogue">
        {(permissions) => <ApplicationForm catalogue={permissions} />}
      </Loader>
    </section>
  );
}

export function ApplicationEdit(props: { id: string }) {
  const loaded = useLoad(
    () => Promise.all([api<Application>('GET', `/applications/${enc(props.id)}`), api<Permission[]>('GET', '/permissions')]),
    [props.id],
  );
  return (
    <section>
      <PageHeader title="Edit application" back={{ to: `/applications/${enc(props.id)}`, label: 'Application' }} />
      <Loader loaded={loaded} what="the application" forbidden="Reading applications">
        {([application, permissions]) => <ApplicationForm catalogue={permissions} existing={application} />}
      </Loader>
    </section>
  );
}

/** `datetime-local`'s value for an ISO instant, in local time. */
const localFromIso = (iso?: string) => {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

function ApplicationForm(props: { catalogue: Permission[]; existing?: Application }) {
  const { existing } = props;
  const [name, setName] = useState(existing?.name ?? '');
  const [type, setType] = useState(existing?.type ?? 'private');
  const [permissions, setPermissions] = useState<string[]>(existing?.permissions ?? []);
  const [rules, setRules] = useState<Rule[]>(existing?.rules ?? []);
  const [expires, setExpires] = useState(localFromIso(existing?.expires_at));
  const { busy, error, run } = useAction();
  const allowed = props.catalogue.filter((permission) => permission.application_types.includes(type));
  const tokenPermissions = allowed.filter((permission) => permission.type.startsWith('token:'));
  const errors = error?.errors;

  const submit = async () => {
    const body: Record<string, unknown> = {
      name,
      type,
      permissions: permissions.filter((permission) => allowed.some((candidate) => candidate.type === permission)),
    };
    if (type !== 'management') {
      body.rules = rules.map((rule) => ({
        ...(rule.description ? { description: rule.description } : {}),
        priority: rule.priority,
        container: rule.container,
        transform: rule.transform,
        permissions: rule.permissions,
      }));
    }
    if (type === 'expiring') body.expires_at = isoFromLocal(expires);
    const saved = existing
      ? await run(() => api<Application>('PUT', `/applications/${enc(existing.id)}`, { body }))
      : await run(() => api<Application>('POST', '/applications', { body }));
    if (!saved) return;
    if (saved.key) issuedKeys.set(saved.id, saved.key);
    navigate(`/applications/${saved.id}`);
  };

  return (
    <form
      class="form"
      onSubmit={(event) => {
        event.preventDefault();
        void submit();
      }}
    >
      <Problem error={error} fields={FIELDS} action={existing ? 'update applications' : 'create applications'} />
      <Field label="Name" name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Type" name="type" errors={errors} hint={existing ? 'The type of an existing application stays as it is.' : undefined}>
        {(control) => (
          <select {...control} value={type} disabled={!!existing} onChange={(e) => setType(e.currentTarget.value)}>
            {APPLICATION_TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        )}
      </Field>
      {type === 'expiring' && (
        <Field label="Expires at" name="expires_at" errors={errors} hint="Required for an expiring application; your local time.">
          {(control) => <input {...control} type="datetime-local" required value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />}
        </Field>
      )}
      <PermissionPicker
        legend="Permissions"
        name="permissions"
        catalogue={allowed}
        selected={permissions}
        errors={errors}
        onChange={setPermissions}
        hint={`The permissions a ${type} application may hold, grouped as the catalogue groups them.`}
      />
      {type === 'management' ? (
        <p class="hint">Management applications have no access rules: they manage the tenant and never read token data.</p>
      ) : (
        <RulesEditor rules={rules} onChange={setRules} tokenPermissions={tokenPermissions} errors={errors} />
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save application' : 'Create application'}
        </button>
      </div>
    </form>
  );
}
