import { api, enc } from '../../api';
import { ConfirmButton } from '../../ui/confirm';
import { Badge, Facts, Id, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import type { ContractElement, Formula } from './formula-types';

export function FormulaDetail(props: { id: string }) {
  const loaded = useLoad(() => api<Formula>('GET', `/reactor-formulas/${enc(props.id)}`), [props.id]);
  const remove = useAction();
  const formula = loaded.data;
  return (
    <section>
      <PageHeader title={formula?.name ?? 'Formula'} back={{ to: '/reactor-formulas', label: 'Reactor formulas' }}>
        {formula && (
          <>
            <Link to={`/reactors/new?formula=${formula.id}`} class="button primary">
              Create a reactor
            </Link>
            {formula.type === 'private' && (
              <>
                <Link to={`/reactor-formulas/${formula.id}/edit`} class="button">
                  Edit
                </Link>
                <ConfirmButton
                  label="Delete"
                  danger
                  title="Delete this formula?"
                  confirmLabel="Delete formula"
                  onConfirm={async () => {
                    const done = await remove.run(() => api('DELETE', `/reactor-formulas/${enc(formula.id)}`).then(() => true));
                    if (done) navigate('/reactor-formulas');
                  }}
                >
                  <p>A formula that reactors still use cannot be deleted; the vault names them.</p>
                </ConfirmButton>
              </>
            )}
          </>
        )}
      </PageHeader>
      <Problem error={remove.error} action="delete reactor formulas" />
      <Loader loaded={loaded} what="the formula" forbidden="Reading reactor formulas">
        {(formula) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={formula.id} />],
                ['Type', <Badge tone={formula.type === 'official' ? 'info' : undefined}>{formula.type}</Badge>],
                ['Status', <Badge tone={formula.status === 'verified' ? 'ok' : 'warn'}>{formula.status}</Badge>],
                ['Description', formula.description || '—'],
                ['Icon', formula.icon ? <img src={formula.icon} alt={`Icon of ${formula.name}`} width={32} height={32} /> : '—'],
                ['Created', <><When at={formula.created_at} /> by <Id value={formula.created_by} /></>],
                ['Modified', formula.modified_at ? <><When at={formula.modified_at} /> by <Id value={formula.modified_by} /></> : '—'],
              ]}
            />
            <div class="grid-2">
              <Contract title="Configuration" elements={formula.configuration} />
              <Contract title="Request parameters" elements={formula.request_parameters} withOptional />
            </div>
            <h2>Code</h2>
            <pre class="json" tabIndex={0} aria-label="Code">
              {formula.code}
            </pre>
          </>
        )}
      </Loader>
    </section>
  );
}

export function Contract(props: { title: string; elements: ContractElement[]; withOptional?: boolean }) {
  return (
    <div>
      <h2>{props.title}</h2>
      {props.elements.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={props.title}>
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                {props.withOptional && <th scope="col">Optional</th>}
                <th scope="col">Description</th>
              </tr>
            </thead>
            <tbody>
              {props.elements.map((element) => (
                <tr key={element.name}>
                  <td>
                    <code>{element.name}</code>
                  </td>
                  <td>{element.type}</td>
                  {props.withOptional && <td>{element.optional ? 'yes' : 'no'}</td>}
                  <td>{element.description ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
