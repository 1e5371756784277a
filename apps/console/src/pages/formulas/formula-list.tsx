import { api, Page, query } from '../../api';
import { Badge, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Pager } from '../../ui/pager';
import { Empty, Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { NameFilter } from '../name-filter';
import { pageParam, PageHeader } from '../shared';
import type { Formula } from './formula-types';

export function FormulaList(props: { params: URLSearchParams }) {
  const page = pageParam(props.params);
  const name = props.params.get('name') ?? '';
  const loaded = useLoad(() => api<Page<Formula>>('GET', `/reactor-formulas${query({ name, page, size: 20 })}`), [name, page]);
  return (
    <section>
      <PageHeader title="Reactor formulas" intro="The code reactors run: the operator’s official formulas and your tenant’s private ones.">
        <Link to="/reactor-formulas/new" class="button primary">
          New formula
        </Link>
      </PageHeader>
      <NameFilter key={name} base="/reactor-formulas" name={name} label="Name" />
      <Loader loaded={loaded} what="formulas" forbidden="Reading reactor formulas">
        {(result) =>
          result.pagination.total_items === 0 ? (
            <Empty>{name ? 'No formula has a matching name.' : 'No formula yet.'}</Empty>
          ) : (
            <>
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Reactor formulas">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Type</th>
                      <th scope="col">Status</th>
                      <th scope="col">Description</th>
                      <th scope="col">Modified</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.data.map((formula) => (
                      <tr key={formula.id}>
                        <td>
                          <Link to={`/reactor-formulas/${formula.id}`}>{formula.name}</Link>
                        </td>
                        <td>
                          <Badge tone={formula.type === 'official' ? 'info' : undefined}>{formula.type}</Badge>
                        </td>
                        <td>
                          <Badge tone={formula.status === 'verified' ? 'ok' : 'warn'}>{formula.status}</Badge>
                        </td>
                        <td>{formula.description ?? ''}</td>
                        <td>
                          <When at={formula.modified_at ?? formula.created_at} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager
                pagination={result.pagination}
                noun="formulas"
                onPage={(next) => navigate(`/reactor-formulas${query({ name, page: next })}`)}
              />
            </>
          )
        }
      </Loader>
    </section>
  );
}
