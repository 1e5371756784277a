import { api, Page, query } from '../../api';
import { When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Empty, Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { NameFilter } from '../name-filter';
import { pageParam, PageHeader } from '../shared';
import type { Reactor } from './reactor-types';

export function ReactorList(props: { params: URLSearchParams }) {
  const page = pageParam(props.params);
  const name = props.params.get('name') ?? '';
  const loaded = useLoad(() => api<Page<Reactor>>('GET', `/reactors${query({ name, page, size: 20 })}`), [name, page]);
  return (
    <section>
      <PageHeader title="Reactors" intro="Formulas put to work with a configuration. Run one on tokens whose data you never see.">
        <Link to="/reactors/new" class="button primary">
          New reactor
        </Link>
      </PageHeader>
      <NameFilter key={name} base="/reactors" name={name} label="Name" />
      <Loader loaded={loaded} what="reactors" forbidden="Reading reactors">
        {(result) =>
          result.pagination.total_items === 0 ? (
            <Empty>{name ? 'No reactor has a matching name.' : 'No reactor yet. Create one from a formula.'}</Empty>
          ) : (
            <>
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Reactors">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Formula</th>
                      <th scope="col">Application</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.data.map((reactor) => (
                      <tr key={reactor.id}>
                        <td>
                          <Link to={`/reactors/${reactor.id}`}>{reactor.name}</Link>
                        </td>
                        <td>
                          <Link to={`/reactor-formulas/${reactor.formula.id}`}>{reactor.formula.name}</Link>
                        </td>
                        <td>{reactor.application?.id ? <code class="id">{reactor.application.id}</code> : <span class="muted">the caller</span>}</td>
                        <td>
                          <When at={reactor.created_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager pagination={result.pagination} noun="reactors" onPage={(next) => navigate(`/reactors${query({ name, page: next })}`)} />
            </>
          )
        }
      </Loader>
    </section>
  );
}
