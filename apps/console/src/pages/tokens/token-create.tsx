// A new token: type and data, and in "More settings" everything else POST /tokens takes.
import { useState } from 'preact/hooks';
import { api, FieldErrors } from '../../api';
import { Field } from '../../ui/field';
import { isoFromLocal, parseJson } from '../../ui/format';
import { Problem } from '../../ui/problem';
import { useAction } from '../../ui/use-load';
import { navigate } from '../../router';
import { PageHeader, splitList } from '../shared';
import { TOKEN_TYPES, Token } from './token-types';

const FIELDS = ['type', 'data', 'containers', 'metadata', 'search_indexes', 'mask', 'fingerprint_expression', 'expires_at'];

export function TokenCreate() {
  const [type, setType] = useState('token');
  const [data, setData] = useState('');
  const [containers, setContainers] = useState('');
  const [metadata, setMetadata] = useState('');
  const [indexes, setIndexes] = useState('');
  const [mask, setMask] = useState('');
  const [fingerprint, setFingerprint] = useState('');
  const [expires, setExpires] = useState('');
  const [dedupe, setDedupe] = useState(false);
  const [local, setLocal] = useState<FieldErrors>();
  const { busy, error, run } = useAction();
  const errors = local ?? error?.errors;
  const described = TOKEN_TYPES.find((candidate) => candidate.type === type)!;

  const submit = async () => {
    const meta = parseJson(metadata, 'metadata');
    if (meta.errors) return setLocal(meta.errors);
    setLocal(undefined);
    let value: unknown = data;
    if (type === 'token') value = parseJson(data, 'data').value ?? data;
    const body: Record<string, unknown> = { type, data: value };
    if (containers.trim()) body.containers = splitList(containers);
    if (meta.value !== undefined) body.metadata = meta.value;
    if (indexes.trim()) body.search_indexes = indexes.split('\n').map((line) => line.trim()).filter(Boolean);
    if (mask.trim()) body.mask = mask;
    if (fingerprint.trim()) body.fingerprint_expression = fingerprint;
    if (expires) body.expires_at = isoFromLocal(expires);
    if (dedupe) body.deduplicate_token = true;
    const token = await run(() => api<Token>('POST', '/tokens', { body }));
    if (token) navigate(`/tokens/${token.id}`);
  };

  return (
    <section>
      <PageHeader title="New token" back={{ to: '/tokens', label: 'Tokens' }} />
      <form
        class="form"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Problem error={error} fields={FIELDS} action="create tokens" />
        <Field label="Type" name="type" errors={errors}>
          {(control) => (
            <select {...control} value={type} onChange={(event) => setType(event.currentTarget.value)}>
              {TOKEN_TYPES.map((option) => (
                <option key={option.type} value={option.type}>
                  {option.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Data" name="data" errors={errors} hint={described.data}>
          {(control) => (
            <textarea {...control} class="code" rows={3} required value={data} spellcheck={false} autoComplete="off" onInput={(e) => setData(e.currentTarget.value)} />
          )}
        </Field>
        <details class="more">
          <summary>More settings</summary>
          <Field label="Containers" name="containers" errors={errors} hint="One per line or comma-separated, e.g. /pii/high/. Default: the type’s container.">
            {(control) => <textarea {...control} rows={2} value={containers} onInput={(e) => setContainers(e.currentTarget.value)} />}
          </Field>
          <Field label="Metadata (JSON object)" name="metadata" errors={errors} hint='Non-sensitive string pairs, e.g. {"customer": "acme"}.'>
            {(control) => <textarea {...control} class="code" rows={3} value={metadata} spellcheck={false} onInput={(e) => setMetadata(e.currentTarget.value)} />}
          </Field>
          <Field label="Search indexes" name="search_indexes" errors={errors} hint="Liquid expressions, one per line, e.g. {{ data | last4 }}.">
            {(control) => <textarea {...control} class="code" rows={2} value={indexes} spellcheck={false} onInput={(e) => setIndexes(e.currentTarget.value)} />}
          </Field>
          <Field label="Mask" name="mask" errors={errors} hint="A Liquid expression, e.g. {{ data | reveal_last: 4 }}.">
            {(control) => <input {...control} class="code" value={mask} spellcheck={false} onInput={(e) => setMask(e.currentTarget.value)} />}
          </Field>
          <Field label="Fingerprint expression" name="fingerprint_expression" errors={errors}>
            {(control) => <input {...control} class="code" value={fingerprint} spellcheck={false} onInput={(e) => setFingerprint(e.currentTarget.value)} />}
          </Field>
          <Field label="Expires at" name="expires_at" errors={errors} hint="Optional; your local time.">
            {(control) => <input {...control} type="datetime-local" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />}
          </Field>
          <div class="field check">
            <input id="token-dedupe" type="checkbox" checked={dedupe} onChange={(e) => setDedupe(e.currentTarget.checked)} />
            <label for="token-dedupe">Deduplicate: return the existing token with the same fingerprint</label>
          </div>
        </details>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create token'}
          </button>
        </div>
      </form>
    </section>
  );
}
