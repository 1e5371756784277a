// "React": invokes the reactor with args typed as JSON and shows what came back, `raw` and `tokens`, as text.
import { useState } from 'preact/hooks';
import { api, enc, FieldErrors } from '../../api';
import { CodeEditor } from '../../ui/code-editor';
import { Field } from '../../ui/field';
import { InvocationKey } from '../../ui/invocation-key';
import { Json, parseJson } from '../../ui/format';
import { Problem } from '../../ui/problem';
import { useAction } from '../../ui/use-load';
import type { ContractElement } from '../formulas/formula-types';

/** `{ "card": { "number": "" } }` from `card.number`: a starting point with every declared parameter. */
function skeleton(parameters: ContractElement[]): string {
  const args: Record<string, unknown> = {};
  for (const parameter of parameters) {
    const path = parameter.name.split('.');
    let node = args;
    for (const segment of path.slice(0, -1)) node = (node[segment] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]] = parameter.type === 'number' ? 0 : parameter.type === 'boolean' ? false : '';
  }
  return JSON.stringify(args, null, 2);
}

export function ReactRunner(props: { reactorId: string; parameters: ContractElement[] }) {
  const [args, setArgs] = useState(() => skeleton(props.parameters));
  const [invocationKey, setInvocationKey] = useState('');
  const [local, setLocal] = useState<FieldErrors>();
  const [result, setResult] = useState<{ raw?: unknown; tokens?: unknown }>();
  const { busy, error, run } = useAction();
  const errors = local ?? error?.errors;
  return (
    <form
      class="panel form"
      aria-labelledby="react-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const parsed = parseJson(args, 'args');
        if (parsed.errors) return setLocal(parsed.errors);
        setLocal(undefined);
        setResult(undefined);
        const answer = await run(() =>
          api<{ raw?: unknown; tokens?: unknown }>('POST', `/reactors/${enc(props.reactorId)}/react`, { body: { args: parsed.value ?? {} }, key: invocationKey || undefined }),
        );
        if (answer) setResult(answer);
      }}
    >
      <h2 id="react-title">React</h2>
      <p class="hint">
        Detokenization expressions such as <code>{'{{ <token id> }}'}</code> are replaced by token data inside the vault; the reactor’s code sees the
        data, you see only what it returns.
      </p>
      <Field label="Args (JSON)" name="args" errors={errors}>
        {(control) => <CodeEditor {...control} rows={8} value={args} onChange={setArgs} />}
      </Field>
      <InvocationKey value={invocationKey} onChange={setInvocationKey} />
      <Problem error={error} fields={['args']} action="use tokens in reactors" />
      {error?.errors.reactor && (
        <p class="hint">The reactor’s code failed; the message above is what it threw.</p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Running…' : 'React'}
        </button>
      </div>
      {result && (
        <div class="grid-2" role="status" aria-label="Result">
          <div>
            <h3>raw</h3>
            <Json value={result.raw ?? null} label="raw" />
          </div>
          <div>
            <h3>tokens</h3>
            <Json value={result.tokens ?? null} label="tokens" />
          </div>
        </div>
      )}
    </form>
  );
}
