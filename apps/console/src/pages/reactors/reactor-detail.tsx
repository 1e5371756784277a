import { api, enc } from '../../api';
import { ConfirmButton } from '../../ui/confirm';
import { Facts, Id, Json, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { Contract } from '../formulas/formula-detail';
import { PageHeader } from '../shared';
import { ReactRunner } from './react-runner';
import type { Reactor } from './reactor-types';

export function ReactorDetail(props: { id: string }) {
  const loaded = useLoad(() => api<Reactor>('GET', `/reactors/${enc(props.id)}`), [props.id]);
  const remove = useAction();
  return (
    <section>
      <PageHeader title={loaded.data?.name ?? 'Reactor'} back={{ to: '/reactors', label: 'Reactors' }}>
        {loaded.data && (
          <>
            <Link to={`/reactors/${enc(props.id)}/edit`} class="button">
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              danger
              title="Delete this reactor?"
              confirmLabel="Delete reactor"
              onConfirm={async () => {
                const done = await remove.run(() => api('DELETE', `/reactors/${enc(props.id)}`).then(() => true));
                if (done) navigate('/reactors');
              }}
            >
              <p>Its configuration is deleted with it; its formula stays.</p>
            </ConfirmButton>
          </>
        )}
      </PageHeader>
      <Problem error={remove.error} action="delete reactors" />
      <Loader loaded={loaded} what="the reactor" forbidden="Reading reactors">
        {(reactor) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={reactor.id} />],
                ['Formula', <Link to={`/reactor-formulas/${reactor.formula.id}`}>{reactor.formula.name}</Link>],
                ['Application', reactor.application?.id ? <Id value={reactor.application.id} /> : <span class="muted">none: the caller</span>],
                ['Created', <><When at={reactor.created_at} /> by <Id value={reactor.created_by} /></>],
                ['Modified', reactor.modified_at ? <><When at={reactor.modified_at} /> by <Id value={reactor.modified_by} /></> : '—'],
              ]}
            />
            <div class="grid-2">
              <div>
                <h2>Configuration</h2>
                {Object.keys(reactor.configuration ?? {}).length ? <Json value={reactor.configuration} label="Configuration" /> : <p class="muted">None.</p>}
              </div>
              <Contract title="Request parameters" elements={reactor.formula.request_parameters} withOptional />
            </div>
            <ReactRunner reactorId={reactor.id} parameters={reactor.formula.request_parameters} />
          </>
        )}
      </Loader>
    </section>
  );
}
