// The audit log: filters (entity type, entity id, dates) kept in the URL, a page of entries, an entry's detail.
import { useEffect, useState } from 'preact/hooks';
import { api, Page, query } from '../../api';
import { Field } from '../../ui/field';
import { Badge, Facts, Id, When } from '../../ui/format';
import { Pager } from '../../ui/pager';
import { Problem } from '../../ui/problem';
import { Empty, Loader } from '../../ui/states';
import { useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { pageParam, PageHeader } from '../shared';

interface Entry {
  tenant_id: string;
  actor_id: string;
  actor_type: string;
  entity_type: string;
  entity_id: string | null;
  operation: string;
  message: string;
  created_at: string;
}

const ENTITY_TYPES = ['token', 'application', 'reactor', 'reactor_formula', 'proxy', 'webhook', 'tenant'];
const FILTERS = ['entity_type', 'entity_id', 'start_date', 'end_date'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

export function AuditArea(props: { params: URLSearchParams }) {
  const applied = Object.fromEntries(FILTERS.map((name) => [name, props.params.get(name) ?? ''])) as Filters;
  const page = pageParam(props.params);
  const key = JSON.stringify([applied, page]);
  const loaded = useLoad(() => api<Page<Entry>>('GET', `/logs${query({ ...applied, page, size: 25 })}`), [key]);
  const [selected, setSelected] = useState<number>();
  useEffect(() => setSelected(undefined), [key]);
  return (
    <section>
      <PageHeader title="Audit log" intro="Every write, and every read that revealed plaintext or used token data: who, what, when. Newest first." />
      <FilterForm key={key} applied={applied} errors={loaded.error?.status === 400 ? loaded.error.errors : undefined} />
      {loaded.error?.status === 400 ? (
        <Problem error={loaded.error} fields={[...FILTERS]} />
      ) : (
        <Loader loaded={loaded} what="the audit log" forbidden="Reading the audit log">
          {(result) =>
            result.pagination.total_items === 0 ? (
              <Empty>No entry matches these filters.</Empty>
            ) : (
              <>
                <div class="table-wrap" tabIndex={0} role="region" aria-label="Audit entries">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">When</th>
                        <th scope="col">Operation</th>
                        <th scope="col">Entity</th>
                        <th scope="col">Actor</th>
                        <th scope="col">Message</th>
                        <th scope="col">
                          <span class="muted">Detail</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {result.data.map((entry, index) => (
                        <tr key={index} aria-selected={selected === index ? 'true' : undefined}>
                          <td>
                            <When at={entry.created_at} />
                          </td>
                          <td>
                            <Badge tone={entry.operation === 'reveal' ? 'warn' : entry.operation === 'delete' ? 'bad' : undefined}>{entry.operation}</Badge>
                          </td>
                          <td>
                            {entry.entity_type}
                            {entry.entity_id && (
                              <>
                                {' '}
                                <code class="id">{entry.entity_id}</code>
                              </>
                            )}
                          </td>
                          <td>
                            <code class="id">{entry.actor_id}</code>
                          </td>
                          <td>{entry.message}</td>
                          <td>
                            <button type="button" class="small" aria-expanded={selected === index} onClick={() => setSelected(selected === index ? undefined : index)}>
                              {selected === index ? 'Hide' : 'Show'}
                              <span class="visually-hidden"> entry {index + 1}</span>
                            </button>
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
                {selected !== undefined && result.data[selected] && <EntryDetail entry={result.data[selected]} onClose={() => setSelected(undefined)} />}
                <Pager
                  pagination={result.pagination}
                  noun="entries"
                  onPage={(next) => {
                    setSelected(undefined);
                    navigate(`/audit-log${query({ ...applied, page: next })}`);
                  }}
                />
              </>
            )
          }
        </Loader>
      )}
    </section>
  );
}

function FilterForm(props: { applied: Filters; errors?: Record<string, string[]> }) {
  const [filters, setFilters] = useState(props.applied);
  const set = (name: keyof Filters, value: string) => setFilters({ ...filters, [name]: value });
  return (
    <form
      class="toolbar"
      role="search"
      aria-label="Audit log filters"
      onSubmit={(event) => {
        event.preventDefault();
        navigate(`/audit-log${query({ ...filters, entity_id: filters.entity_id.trim() })}`);
      }}
    >
      <Field label="Entity type" name="entity_type" errors={props.errors}>
        {(control) => (
          <select {...control} value={filters.entity_type} onChange={(e) => set('entity_type', e.currentTarget.value)}>
            <option value="">Any</option>
            {ENTITY_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Entity id" name="entity_id" errors={props.errors}>
        {(control) => <input {...control} class="code" value={filters.entity_id} placeholder="a UUID" onInput={(e) => set('entity_id', e.currentTarget.value)} />}
      </Field>
      <Field label="From" name="start_date" errors={props.errors}>
        {(control) => <input {...control} type="date" value={filters.start_date} onInput={(e) => set('start_date', e.currentTarget.value)} />}
      </Field>
      <Field label="To" name="end_date" errors={props.errors}>
        {(control) => <input {...control} type="date" value={filters.end_date} onInput={(e) => set('end_date', e.currentTarget.value)} />}
      </Field>
      <button type="submit" class="primary">
        Apply filters
      </button>
      <button type="button" onClick={() => navigate('/audit-log')}>
        Clear
      </button>
    </form>
  );
}

function EntryDetail(props: { entry: Entry; onClose: () => void }) {
  const { entry } = props;
  return (
    <div class="panel" role="region" aria-label="Audit entry">
      <div class="section-head">
        <h2>Entry</h2>
        <button type="button" class="small" onClick={props.onClose}>
          Close
        </button>
      </div>
      <Facts
        rows={[
          ['When', <When at={entry.created_at} />],
          ['Operation', entry.operation],
          ['Entity type', entry.entity_type],
          ['Entity id', <Id value={entry.entity_id} />],
          ['Actor', <>{entry.actor_type} <Id value={entry.actor_id} /></>],
          ['Tenant', <Id value={entry.tenant_id} />],
          ['Message', entry.message],
        ]}
      />
    </div>
  );
}
