// Edit as a JSON merge patch: the fields are prefilled from the token; null removes a member.
import { useEffect, useState } from 'preact/hooks';
import { api, enc, FieldErrors } from '../../api';
import { CodeEditor } from '../../ui/code-editor';
import { Field } from '../../ui/field';
import { parseJson } from '../../ui/format';
import { Problem } from '../../ui/problem';
import { Loader } from '../../ui/states';
import { useAction, useLoad } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader } from '../shared';
import type { Token } from './token-types';


export function TokenEdit(props: { id: string }) {
  const loaded = useLoad(() => api<Token>('GET', `/tokens/${enc(props.id)}`), [props.id]);
  return (
    <section>
      <PageHeader title="Edit token" back={{ to: `/tokens/${enc(props.id)}`, label: 'Token' }} />
      <Loader loaded={loaded} what="the token" forbidden="Reading a token">
        {(token) => <PatchForm token={token} />}
      </Loader>
    </section>
  );
}

function PatchForm(props: { token: Token }) {
  const [patch, setPatch] = useState('');
  const [local, setLocal] = useState<FieldErrors>();
  const { busy, error, run } = useAction();
  useEffect(() => {
    const { containers, metadata, expires_at } = props.token;
    setPatch(JSON.stringify({ containers, metadata: metadata ?? {}, ...(expires_at ? { expires_at } : {}) }, null, 2));
  }, [props.token]);
  const errors = local ?? error?.errors;
  return (
    <form
      class="form"
      onSubmit={async (event) => {
        event.preventDefault();
        const parsed = parseJson(patch, 'patch');
        if (parsed.errors) return setLocal(parsed.errors);
        if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
          return setLocal({ patch: ['The merge patch must be a JSON object.'] });
        }
        setLocal(undefined);
        const saved = await run(() =>
          api<Token>('PATCH', `/tokens/${enc(props.token.id)}`, { body: parsed.value, contentType: 'application/merge-patch+json' }),
        );
        if (saved) navigate(`/tokens/${saved.id}`);
      }}
    >
      <Problem error={error} fields={['patch']} action="update tokens" />
      <Field
        label="Merge patch (JSON)"
        name="patch"
        errors={errors}
        hint={
          <>
            A JSON merge patch of <code>data</code>, <code>containers</code>, <code>metadata</code>, <code>search_indexes</code>,{' '}
            <code>fingerprint_expression</code>, <code>mask</code> and <code>expires_at</code>. Members left out stay as they are;
            <code> null</code> removes one (<code>{'{"metadata": {"note": null}}'}</code>).
          </>
        }
      >
        {(control) => <CodeEditor {...control} rows={12} value={patch} onChange={setPatch} />}
      </Field>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}
