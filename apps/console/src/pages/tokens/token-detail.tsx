import { api, enc } from '../../api';
import { ConfirmButton } from '../../ui/confirm';
import { Facts, Id, Json, TokenData, When } from '../../ui/format';
import { Link } from '../../ui/link';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import type { Token } from './token-types';

export function TokenDetail(props: { id: string }) {
  const loaded = useLoad(() => api<Token>('GET', `/tokens/${enc(props.id)}`), [props.id]);
  const remove = useAction();
  return (
    <section>
      <PageHeader title="Token" back={{ to: '/tokens', label: 'Tokens' }}>
        {loaded.data && (
          <>
            <Link to={`/tokens/${enc(props.id)}/edit`} class="button">
              Edit
            </Link>
            <ConfirmButton
              label="Delete"
              danger
              title="Delete this token?"
              confirmLabel="Delete token"
              onConfirm={async () => {
                const done = await remove.run(() => api('DELETE', `/tokens/${enc(props.id)}`).then(() => true));
                if (done) navigate('/tokens');
              }}
            >
              <p>
                Its data key is destroyed, so its data cannot be recovered, not even from the event log. Token <code>{props.id}</code> stops
                working everywhere it is used.
              </p>
            </ConfirmButton>
          </>
        )}
      </PageHeader>
      <Problem error={remove.error} action="delete tokens" />
      <Loader loaded={loaded} what="the token" forbidden="Reading a token">
        {(token) => (
          <>
            <Facts
              rows={[
                ['Id', <Id value={token.id} />],
                ['Type', token.type],
                ['Data', <TokenData token={token} block />],
                ['Containers', (token.containers ?? []).join(', ') || '—'],
                ['Fingerprint', <Id value={token.fingerprint} />],
                ['Fingerprint expression', token.fingerprint_expression ? <code>{token.fingerprint_expression}</code> : '—'],
                ['Mask', token.mask ? <code>{token.mask}</code> : '—'],
                ['Search indexes', token.search_indexes?.length ? token.search_indexes.map((index) => <code key={index} class="pair">{index}</code>) : '—'],
                ['Expires', <When at={token.expires_at} />],
                ['Created', <><When at={token.created_at} /> by <Id value={token.created_by} /></>],
                ['Modified', token.modified_at ? <><When at={token.modified_at} /> by <Id value={token.modified_by} /></> : '—'],
              ]}
            />
            <h2>Metadata</h2>
            {Object.keys(token.metadata ?? {}).length ? <Json value={token.metadata} label="Metadata" /> : <p class="muted">No metadata.</p>}
          </>
        )}
      </Loader>
    </section>
  );
}
