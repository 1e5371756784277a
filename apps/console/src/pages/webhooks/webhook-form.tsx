// Create (POST) and edit (PUT) a webhook: name, URL, the event types it receives, enabled or not.
import { useState } from 'preact/hooks';
import { api, enc } from '../../api';
import { Field, FieldSet } from '../../ui/field';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import { EVENT_GROUPS, issuedSecrets, Webhook } from './webhook-types';

const FIELDS = ['name', 'url', 'events', 'enabled'];

export function WebhookNew() {
  return (
    <section>
      <PageHeader title="New webhook" back={{ to: '/webhooks', label: 'Webhooks' }} />
      <WebhookForm />
    </section>
  );
}

export function WebhookEdit(props: { id: string }) {
  const loaded = useLoad(() => api<Webhook>('GET', `/webhooks/${enc(props.id)}`), [props.id]);
  return (
    <section>
      <PageHeader title="Edit webhook" back={{ to: `/webhooks/${enc(props.id)}`, label: 'Webhook' }} />
      <Loader loaded={loaded} what="the webhook" forbidden="Reading webhooks">
        {(webhook) => <WebhookForm existing={webhook} />}
      </Loader>
    </section>
  );
}

function WebhookForm(props: { existing?: Webhook }) {
  const { existing } = props;
  const [name, setName] = useState(existing?.name ?? '');
  const [url, setUrl] = useState(existing?.url ?? '');
  const [events, setEvents] = useState<string[]>(existing?.events ?? []);
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const { busy, error, run } = useAction();
  const errors = error?.errors;
  const toggle = (type: string, on: boolean) => setEvents(on ? [...events, type] : events.filter((event) => event !== type));

  return (
    <form
      class="form"
      onSubmit={async (event) => {
        event.preventDefault();
        const body = { name, url, events, enabled };
        const saved = existing
          ? await run(() => api<Webhook>('PUT', `/webhooks/${enc(existing.id)}`, { body }))
          : await run(() => api<Webhook>('POST', '/webhooks', { body }));
        if (!saved) return;
        if (saved.signing_secret) issuedSecrets.set(saved.id, saved.signing_secret);
        navigate(`/webhooks/${saved.id}`);
      }}
    >
      <Problem error={error} fields={FIELDS} action={existing ? 'update webhooks' : 'create webhooks'} />
      <Field label="Name" name="name" errors={errors}>
        {(control) => <input {...control} required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="URL" name="url" errors={errors} hint="Where events are POSTed; its host must be one the operator allows.">
        {(control) => <input {...control} type="url" class="code" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
      </Field>
      <FieldSet legend="Event types" name="events" errors={errors} hint="At least one.">
        {EVENT_GROUPS.map(([group, types]) => (
          <div key={group} role="group" aria-label={`${group} events`}>
            <p class="group-title">{group}</p>
            <div class="checks">
              {types.map((type) => (
                <label key={type}>
                  <input type="checkbox" checked={events.includes(type)} onChange={(e) => toggle(type, e.currentTarget.checked)} />
                  <code>{type}</code>
                </label>
              ))}
            </div>
          </div>
        ))}
      </FieldSet>
      <div class="field check">
        <input id="webhook-enabled" type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <label for="webhook-enabled">Enabled</label>
      </div>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : existing ? 'Save webhook' : 'Create webhook'}
        </button>
      </div>
    </form>
  );
}
