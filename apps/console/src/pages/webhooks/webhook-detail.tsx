// A webhook: its settings, its signing secret once when just created, and its deliveries with their states.
import { useState } from 'preact/hooks';
import { api, enc, Page, query } from '../../api';
import { ConfirmButton } from '../../ui/confirm';
import { CopyButton } from '../../ui/copy';
import { Badge, Facts, Id, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Problem } from '../../ui/problem';
import { Empty, Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { pageParam, PageHeader } from '../shared';
import { Delivery, issuedSecrets, Webhook } from './webhook-types';

const STATE_TONE = { delivered: 'ok', pending: 'info', failed: 'bad' } as const;

export function WebhookDetail(props: { id: string; params: URLSearchParams }) {
  const loaded = useLoad(() => api<Webhook>('GET', `/webhooks/${enc(props.id)}`), [props.id]);
  const [secret, setSecret] = useState(() => {
    const issued = issuedSecrets.get(props.id);
    issuedSecrets.delete(props.id);
    return issued;
  });
  const remove = useAction();
  return (
    <section>
      <PageHeader title={loaded.data?.name ?? 'Webhook'} back={{ to: '/webhooks', label: 'Webhooks' }}>
        {loaded.data && (
          <>
            <Link to={`/webhooks/${enc(props.id)}/edit`} class="button">
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              danger
              title="Delete this webhook?"
              confirmLabel="Delete webhook"
              onConfirm={async () => {
                const done = await remove.run(() => api('DELETE', `/webhooks/${enc(props.id)}`).then(() => true));
                if (done) navigate('/webhooks');
              }}
            >
              <p>Its deliveries stop at once, pending ones included.</p>
            </ConfirmButton>
          </>
        )}
      </PageHeader>
      {secret && (
        <div class="notice ok" role="status">
          <p>
            <strong>The signing secret.</strong> It is shown this once: your server checks each delivery’s <code>SVC-Webhook-Signature</code> with it.
          </p>
          <div class="secret">
            <code aria-label="Signing secret">{secret}</code>
            <CopyButton value={secret} label="Copy secret" />
            <button type="button" class="small" onClick={() => setSecret(undefined)}>
              I have stored it
            </button>
          </div>
        </div>
      )}
      <Problem error={remove.error} action="delete webhooks" />
      <Loader loaded={loaded} what="the webhook" forbidden="Reading webhooks">
        {(webhook) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={webhook.id} />],
                ['URL', <code class="id">{webhook.url}</code>],
                ['State', webhook.enabled ? <Badge tone="ok">enabled</Badge> : <Badge>disabled</Badge>],
                ['Events', webhook.events.map((event) => <code key={event} class="pair">{event}</code>)],
                ['Created', <><When at={webhook.created_at} /> by <Id value={webhook.created_by} /></>],
                ['Modified', webhook.modified_at ? <><When at={webhook.modified_at} /> by <Id value={webhook.modified_by} /></> : '—'],
              ]}
            />
            <Deliveries id={webhook.id} page={pageParam(props.params)} />
          </>
        )}
      </Loader>
    </section>
  );
}

function Deliveries(props: { id: string; page: number }) {
  const loaded = useLoad(() => api<Page<Delivery>>('GET', `/webhooks/${enc(props.id)}/deliveries${query({ page: props.page, size: 20 })}`), [props.id, props.page]);
  return (
    <section aria-labelledby="deliveries-title">
      <div class="section-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" class="small" onClick={loaded.reload}>
          Refresh
        </button>
      </div>
      <Loader loaded={loaded} what="deliveries" forbidden="Reading deliveries">
        {(result) =>
          result.pagination.total_items === 0 ? (
            <Empty>No delivery yet: events appear here as the tenant’s entities change.</Empty>
          ) : (
            <>
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Deliveries">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Event</th>
                      <th scope="col">Type</th>
                      <th scope="col">State</th>
                      <th scope="col">Attempts</th>
                      <th scope="col">Last status</th>
                      <th scope="col">Last attempt</th>
                      <th scope="col">Next attempt</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.data.map((delivery) => (
                      <tr key={delivery.event_id}>
                        <td>
                          <code class="id">{delivery.event_id}</code>
                        </td>
                        <td>
                          <code>{delivery.event_type}</code>
                        </td>
                        <td>
                          <Badge tone={STATE_TONE[delivery.state]}>{delivery.state}</Badge>
                        </td>
                        <td>{delivery.attempts}</td>
                        <td>{delivery.last_status ?? '—'}</td>
                        <td>
                          <When at={delivery.last_attempt_at} />
                        </td>
                        <td>
                          <When at={delivery.next_attempt_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager pagination={result.pagination} noun="deliveries" onPage={(next) => navigate(`/webhooks/${props.id}?page=${next}`)} />
            </>
          )
        }
      </Loader>
    </section>
  );
}
