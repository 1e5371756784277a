// The caller's tenant: its name, the usage report, and deleting it (typed confirmation).
import { useState } from 'preact/hooks';
import { api } from '../../api';
import { signOut } from '../../session';
import { ConfirmButton } from '../../ui/confirm';
import { Field } from '../../ui/field';
import { Facts, Id, When } from '../../ui/format';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { PageHeader } from '../shared';
import { UsageReport } from './usage-chart';

interface Tenant {
  id: string;
  name: string;
  created_by?: string;
  created_at?: string;
  modified_by?: string;
  modified_at?: string;
}

export function TenantArea() {
  const loaded = useLoad(() => api<Tenant>('GET', '/tenants/self'), []);
  return (
    <section>
      <PageHeader title="Tenant" intro="The tenant this key belongs to. Everything the console shows is inside it." />
      <Loader loaded={loaded} what="the tenant" forbidden="Reading the tenant">
        {(tenant) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={tenant.id} />],
                ['Name', tenant.name],
                ['Created', <><When at={tenant.created_at} /> by <Id value={tenant.created_by} /></>],
                ['Modified', tenant.modified_at ? <><When at={tenant.modified_at} /> by <Id value={tenant.modified_by} /></> : '—'],
              ]}
            />
            <RenameForm tenant={tenant} onSaved={loaded.reload} />
          </>
        )}
      </Loader>
      <section class="panel" aria-labelledby="usage-title">
        <h2 id="usage-title">Usage</h2>
        <UsageReport />
      </section>
      {loaded.data && <DeleteTenant tenant={loaded.data} />}
    </section>
  );
}

function RenameForm(props: { tenant: Tenant; onSaved: () => void }) {
  const [name, setName] = useState(props.tenant.name);
  const { busy, error, run } = useAction();
  const [saved, setSaved] = useState(false);
  return (
    <form
      class="panel form"
      aria-labelledby="rename-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setSaved(false);
        const done = await run(() => api('PUT', '/tenants/self', { body: { name } }).then(() => true));
        if (done) {
          setSaved(true);
          props.onSaved();
        }
      }}
    >
      <h2 id="rename-title">Name</h2>
      <Problem error={error} fields={['name']} action="rename the tenant" />
      <div class="row">
        <Field label="Tenant name" name="name" errors={error?.errors}>
          {(control) => <input {...control} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <button type="submit" class="primary" disabled={busy || name === props.tenant.name}>
          {busy ? 'Saving…' : 'Rename'}
        </button>
      </div>
      {saved && (
        <p class="hint" role="status">
          Saved.
        </p>
      )}
    </form>
  );
}

function DeleteTenant(props: { tenant: Tenant }) {
  const { error, run } = useAction();
  return (
    <section class="panel danger-zone" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete the tenant</h2>
      <p>
        Deletes the tenant with everything in it. Its key is destroyed, so the data of every token is gone at once, and every key of the tenant, this
        one included, stops working.
      </p>
      <Problem error={error} action="delete the tenant" />
      <ConfirmButton
        label="Delete tenant"
        danger
        typed={props.tenant.name}
        title="Delete this tenant and all its data?"
        confirmLabel="Delete tenant for ever"
        onConfirm={async () => {
          const done = await run(() => api('DELETE', '/tenants/self').then(() => true));
          if (done) signOut(`the tenant “${props.tenant.name}” was deleted.`);
        }}
      >
        <p>This cannot be undone.</p>
      </ConfirmButton>
    </section>
  );
}
