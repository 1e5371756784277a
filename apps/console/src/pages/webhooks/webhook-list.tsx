import { api, Page, query } from '../../api';
import { Badge, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Empty, Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { pageParam, PageHeader } from '../shared';
import type { Webhook } from './webhook-types';

export function WebhookList(props: { params: URLSearchParams }) {
  const page = pageParam(props.params);
  const loaded = useLoad(() => api<Page<Webhook>>('GET', `/webhooks${query({ page, size: 20 })}`), [page]);
  return (
    <section>
      <PageHeader title="Webhooks" intro="Your servers, told of the tenant’s events as they happen: ids and types, never token data.">
        <Link to="/webhooks/new" class="button primary">
          New webhook
        </Link>
      </PageHeader>
      {loaded.error?.status === 404 ? (
        <p class="empty">This service does not offer webhooks.</p>
      ) : (
        <Loader loaded={loaded} what="webhooks" forbidden="Reading webhooks">
          {(result) =>
            result.pagination.total_items === 0 ? (
              <Empty>No webhook yet.</Empty>
            ) : (
              <>
                <div class="table-wrap" tabIndex={0} role="region" aria-label="Webhooks">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">URL</th>
                        <th scope="col">Events</th>
                        <th scope="col">State</th>
                        <th scope="col">Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      {result.data.map((webhook) => (
                        <tr key={webhook.id}>
                          <td>
                            <Link to={`/webhooks/${webhook.id}`}>{webhook.name}</Link>
                          </td>
                          <td>
                            <code class="id">{webhook.url}</code>
                          </td>
                          <td>{webhook.events.length}</td>
                          <td>{webhook.enabled ? <Badge tone="ok">enabled</Badge> : <Badge>disabled</Badge>}</td>
                          <td>
                            <When at={webhook.created_at} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                <Pager pagination={result.pagination} noun="webhooks" onPage={(next) => navigate(`/webhooks?page=${next}`)} />
              </>
            )
          }
        </Loader>
      )}
    </section>
  );
}
