// An application: its settings, its key once when just issued, regenerate and delete.
import { useState } from 'preact/hooks';
import { api, enc } from '../../api';
import { ConfirmButton } from '../../ui/confirm';
import { CopyButton } from '../../ui/copy';
import { Badge, Facts, Id, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import { Application, issuedKeys } from './application-types';

export function ApplicationDetail(props: { id: string }) {
  const loaded = useLoad(() => api<Application>('GET', `/applications/${enc(props.id)}`), [props.id]);
  // Taken out of the map at once: leaving the page and coming back shows it no more.
  const [key, setKey] = useState(() => {
    const issued = issuedKeys.get(props.id);
    issuedKeys.delete(props.id);
    return issued;
  });
  const action = useAction();
  return (
    <section>
      <PageHeader title={loaded.data?.name ?? 'Application'} back={{ to: '/applications', label: 'Applications' }}>
        {loaded.data && (
          <>
            <Link to={`/applications/${enc(props.id)}/edit`} class="button">
              Edit
            </Link>
            <ConfirmButton
              label="Regenerate key"
              title="Regenerate this application’s key?"
              confirmLabel="Regenerate key"
              onConfirm={async () => {
                const regenerated = await action.run(() => api<Application>('POST', `/applications/${enc(props.id)}/regenerate`));
                if (regenerated?.key) setKey(regenerated.key);
              }}
            >
              <p>The current key stops working at once. Every service that uses it needs the new one.</p>
            </ConfirmButton>
            <ConfirmButton
              label="Delete"
              danger
              title="Delete this application?"
              confirmLabel="Delete application"
              onConfirm={async () => {
                const done = await action.run(() => api('DELETE', `/applications/${enc(props.id)}`).then(() => true));
                if (done) navigate('/applications');
              }}
            >
              <p>Its key stops working at once, and the application cannot be restored.</p>
            </ConfirmButton>
          </>
        )}
      </PageHeader>
      {key && (
        <div class="notice ok" role="status">
          <p>
            <strong>The application’s API key.</strong> It is shown this once: copy it now and keep it in a secret store.
          </p>
          <div class="secret">
            <code aria-label="API key">{key}</code>
            <CopyButton value={key} label="Copy key" />
            <button type="button" class="small" onClick={() => setKey(undefined)}>
              I have stored it
            </button>
          </div>
        </div>
      )}
      <Problem error={action.error} action="change applications" />
      <Loader loaded={loaded} what="the application" forbidden="Reading applications">
        {(application) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={application.id} />],
                ['Type', <Badge>{application.type}</Badge>],
                ['Permissions', application.permissions.length ? application.permissions.map((p) => <code key={p} class="pair">{p}</code>) : '—'],
                ['Expires', <When at={application.expires_at} />],
                ['Created', <><When at={application.created_at} /> by <Id value={application.created_by} /></>],
                ['Modified', application.modified_at ? <><When at={application.modified_at} /> by <Id value={application.modified_by} /></> : '—'],
              ]}
            />
            <h2>Access rules</h2>
            {application.rules.length === 0 ? (
              <p class="muted">
                No rules{application.type === 'management' ? '.' : ': its permissions apply to every token, masked.'}
              </p>
            ) : (
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Access rules">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Priority</th>
                      <th scope="col">Container</th>
                      <th scope="col">Transform</th>
                      <th scope="col">Permissions</th>
                      <th scope="col">Description</th>
                    </tr>
                  </thead>
                  <tbody>
                    {[...application.rules]
                      .sort((a, b) => a.priority - b.priority)
                      .map((rule) => (
                        <tr key={rule.priority}>
                          <td>{rule.priority}</td>
                          <td>
                            <code>{rule.container}</code>
                          </td>
                          <td>
                            <Badge tone={rule.transform === 'reveal' ? 'warn' : undefined}>{rule.transform}</Badge>
                          </td>
                          <td>{rule.permissions.join(', ')}</td>
                          <td>{rule.description ?? ''}</td>
                        </tr>
                      ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Loader>
    </section>
  );
}
