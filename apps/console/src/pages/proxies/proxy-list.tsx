import { api, Page, query } from '../../api';
import { Badge, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Empty, Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { NameFilter } from '../name-filter';
import { pageParam, PageHeader } from '../shared';
import type { Proxy } from './proxy-types';

export function ProxyList(props: { params: URLSearchParams }) {
  const page = pageParam(props.params);
  const name = props.params.get('name') ?? '';
  const loaded = useLoad(() => api<Page<Proxy>>('GET', `/proxies${query({ name, page, size: 20 })}`), [name, page]);
  return (
    <section>
      <PageHeader title="Proxies" intro="Requests sent on to a destination, with token data put in on the way out or taken out on the way in.">
        <Link to="/proxies/new" class="button primary">
          New proxy
        </Link>
      </PageHeader>
      <NameFilter key={name} base="/proxies" name={name} label="Name" />
      <Loader loaded={loaded} what="proxies" forbidden="Reading proxies">
        {(result) =>
          result.pagination.total_items === 0 ? (
            <Empty>{name ? 'No proxy has a matching name.' : 'No proxy yet.'}</Empty>
          ) : (
            <>
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Proxies">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Destination</th>
                      <th scope="col">Transforms</th>
                      <th scope="col">Key needed</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.data.map((proxy) => (
                      <tr key={proxy.id}>
                        <td>
                          <Link to={`/proxies/${proxy.id}`}>{proxy.name}</Link>
                        </td>
                        <td>
                          <code class="id">{proxy.destination_url ?? ''}</code>
                        </td>
                        <td>
                          {proxy.request_transforms?.length ?? 0} in · {proxy.response_transforms?.length ?? 0} out
                        </td>
                        <td>{proxy.require_auth ? <Badge tone="ok">API key</Badge> : <Badge tone="warn">anonymous</Badge>}</td>
                        <td>
                          <When at={proxy.created_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager pagination={result.pagination} noun="proxies" onPage={(next) => navigate(`/proxies${query({ name, page: next })}`)} />
            </>
          )
        }
      </Loader>
    </section>
  );
}
