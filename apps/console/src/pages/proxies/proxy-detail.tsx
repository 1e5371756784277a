import { api, enc } from '../../api';
import { ConfirmButton } from '../../ui/confirm';
import { CopyButton } from '../../ui/copy';
import { Badge, Facts, Id, Json, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import { ProxyRunner } from './proxy-runner';
import type { Proxy, Transform } from './proxy-types';

export function ProxyDetail(props: { id: string }) {
  const loaded = useLoad(() => api<Proxy>('GET', `/proxies/${enc(props.id)}`), [props.id]);
  const remove = useAction();
  return (
    <section>
      <PageHeader title={loaded.data?.name ?? 'Proxy'} back={{ to: '/proxies', label: 'Proxies' }}>
        {loaded.data && (
          <>
            <Link to={`/proxies/${enc(props.id)}/edit`} class="button">
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              danger
              title="Delete this proxy?"
              confirmLabel="Delete proxy"
              onConfirm={async () => {
                const done = await remove.run(() => api('DELETE', `/proxies/${enc(props.id)}`).then(() => true));
                if (done) navigate('/proxies');
              }}
            >
              <p>Its key stops routing requests at once, and its configuration is deleted.</p>
            </ConfirmButton>
          </>
        )}
      </PageHeader>
      <Problem error={remove.error} action="delete proxies" />
      <Loader loaded={loaded} what="the proxy" forbidden="Reading proxies">
        {(proxy) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={proxy.id} />],
                ['Destination', <code class="id">{proxy.destination_url ?? ''}</code>],
                ['Proxy key', proxy.key ? <span class="secret"><code>{proxy.key}</code> <CopyButton value={proxy.key} label="Copy proxy key" /></span> : '—'],
                ['Invocation', proxy.require_auth ? <Badge tone="ok">needs an API key</Badge> : <Badge tone="warn">anonymous: the proxy key alone</Badge>],
                ['Application', proxy.application?.id ? <Id value={proxy.application.id} /> : '—'],
                ['Created', <><When at={proxy.created_at} /> by <Id value={proxy.created_by} /></>],
                ['Modified', proxy.modified_at ? <><When at={proxy.modified_at} /> by <Id value={proxy.modified_by} /></> : '—'],
              ]}
            />
            <div class="grid-2">
              <Transforms title="Request transforms" transforms={proxy.request_transforms ?? []} />
              <Transforms title="Response transforms" transforms={proxy.response_transforms ?? []} />
            </div>
            <h2>Configuration</h2>
            {Object.keys(proxy.configuration ?? {}).length ? <Json value={proxy.configuration} label="Configuration" /> : <p class="muted">None.</p>}
            {proxy.key && <ProxyRunner proxyKey={proxy.key} requireAuth={proxy.require_auth} />}
          </>
        )}
      </Loader>
    </section>
  );
}

function Transforms(props: { title: string; transforms: Transform[] }) {
  return (
    <div>
      <h2>{props.title}</h2>
      {props.transforms.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ol class="rows">
          {props.transforms.map((transform, index) => (
            <li key={index}>
              <Badge>{transform.type}</Badge>
              <pre class="json">{transform.type === 'code' ? transform.code : JSON.stringify(transform.fields, null, 2)}</pre>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
