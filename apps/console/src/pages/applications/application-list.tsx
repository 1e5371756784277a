import { api, Page, query } from '../../api';
import { Badge, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Empty, Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { pageParam, PageHeader } from '../shared';
import type { Application } from './application-types';

export function ApplicationList(props: { params: URLSearchParams }) {
  const page = pageParam(props.params);
  const loaded = useLoad(() => api<Page<Application>>('GET', `/applications${query({ page, size: 20 })}`), [page]);
  return (
    <section>
      <PageHeader title="Applications" intro="Every caller of the vault is an application: its key, its permissions and its access rules.">
        <Link to="/applications/new" class="button primary">
          New application
        </Link>
      </PageHeader>
      <Loader loaded={loaded} what="applications" forbidden="Listing applications">
        {(result) =>
          result.pagination.total_items === 0 ? (
            <Empty>No application yet.</Empty>
          ) : (
            <>
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Applications">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col">Permissions</th>
                      <th scope="col">Rules</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.data.map((application) => (
                      <tr key={application.id}>
                        <td>
                          <Link to={`/applications/${application.id}`}>{application.name}</Link>
                        </td>
                        <td>
                          <Badge tone={application.type === 'management' ? 'warn' : undefined}>{application.type}</Badge>
                        </td>
                        <td>{application.permissions.length}</td>
                        <td>{application.rules.length}</td>
                        <td>
                          <When at={application.created_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager pagination={result.pagination} noun="applications" onPage={(next) => navigate(`/applications?page=${next}`)} />
            </>
          )
        }
      </Loader>
    </section>
  );
}
