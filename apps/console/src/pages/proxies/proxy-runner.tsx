// "Try it": invokes the proxy as a client would, SVC-PROXY-KEY in a header (never the URL), and shows the answer
// as text. An answer the vault made itself carries SVC-PROXY-ERROR and is shown as such.
import { useState } from 'preact/hooks';
import { apiKey } from '../../session';
import { CodeEditor } from '../../ui/code-editor';
import { Field, FieldMessages } from '../../ui/field';
import { Badge } from '../../ui/format';
import { InvocationKey } from '../../ui/invocation-key';

interface Answer {
  status: number;
  statusText: string;
  vaultError: boolean;
  headers: Array<[string, string]>;
  body: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** `Name: value` lines → headers; a line without a colon is an error naming it. */
function headersOf(text: string): { headers: Record<string, string>; error?: string } {
  const headers: Record<string, string> = {};
  for (const [index, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { headers, error: `Line ${index + 1} is not "Name: value".` };
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return { headers };
}

export function ProxyRunner(props: { proxyKey: string; requireAuth: boolean }) {
  const [method, setMethod] = useState('POST');
  const [path, setPath] = useState('/');
  const [headerText, setHeaderText] = useState('Content-Type: application/json');
  const [body, setBody] = useState('{}');
  const [sendKey, setSendKey] = useState(props.requireAuth);
  const [invocationKey, setInvocationKey] = useState('');
  const [answer, setAnswer] = useState<Answer>();
  const [failure, setFailure] = useState<string>();
  const [headerError, setHeaderError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const send = async () => {
    const parsed = headersOf(headerText);
    setHeaderError(parsed.error);
    if (parsed.error) return;
    setBusy(true);
    setFailure(undefined);
    setAnswer(undefined);
    try {
      const headers: Record<string, string> = { ...parsed.headers, 'SVC-PROXY-KEY': props.proxyKey };
      const key = invocationKey || apiKey();
      if (sendKey && key) headers['SVC-API-KEY'] = key;
      const suffix = path.trim() === '' || path.trim() === '/' ? '' : path.startsWith('/') ? path : `/${path}`;
      const response = await fetch(`/proxy${suffix}`, {
        method,
        headers,
        body: method === 'GET' ? undefined : body,
        credentials: 'omit',
        cache: 'no-store',
        redirect: 'manual',
      });
      setAnswer({
        status: response.status,
        statusText: response.statusText,
        vaultError: response.headers.get('svc-proxy-error') === 'true',
        headers: [...response.headers.entries()],
        body: await response.text(),
      });
    } catch {
      setFailure('The request did not complete: the vault could not be reached.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="panel form"
      aria-labelledby="try-title"
      onSubmit={(event) => {
        event.preventDefault();
        void send();
      }}
    >
      <h2 id="try-title">Try it</h2>
      <p class="hint">
        Sends a request through the proxy from this browser. Detokenization expressions (<code>{'{{ <token id> }}'}</code>) in the body and headers are
        replaced on the way out when the request carries your API key.
      </p>
      <div class="row">
        <Field label="Method" name="method" class="narrow">
          {(control) => (
            <select {...control} value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
              {METHODS.map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Path and query" name="path" hint="Appended to the destination URL.">
          {(control) => <input {...control} class="code" value={path} onInput={(e) => setPath(e.currentTarget.value)} />}
        </Field>
      </div>
      <Field label="Headers" name="headers" hint="One “Name: value” a line.">
        {(control) => <textarea {...control} class="code" rows={2} value={headerText} onInput={(e) => setHeaderText(e.currentTarget.value)} />}
      </Field>
      {headerError && <FieldMessages messages={[headerError]} />}
      {method !== 'GET' && (
        <Field label="Body" name="body">
          {(control) => <CodeEditor {...control} rows={6} value={body} onChange={setBody} />}
        </Field>
      )}
      <div class="field check">
        <input id="proxy-send-key" type="checkbox" checked={sendKey} onChange={(e) => setSendKey(e.currentTarget.checked)} />
        <label for="proxy-send-key">Send an API key (SVC-API-KEY)</label>
      </div>
      {sendKey && <InvocationKey value={invocationKey} onChange={setInvocationKey} />}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Sending…' : 'Send request'}
        </button>
      </div>
      {failure && (
        <p class="notice error" role="alert">
          {failure}
        </p>
      )}
      {answer && (
        <div role="status" aria-label="Proxy answer">
          <p>
            <Badge tone={answer.status < 400 ? 'ok' : 'bad'}>
              {answer.status} {answer.statusText}
            </Badge>{' '}
            {answer.vaultError ? 'answered by the vault itself (SVC-PROXY-ERROR)' : 'answered by the destination'}
          </p>
          <details>
            <summary>Response headers</summary>
            <pre class="json">{answer.headers.map(([name, value]) => `${name}: ${value}`).join('\n')}</pre>
          </details>
          <h3>Response body</h3>
          <pre class="json" aria-label="Response body">
            {answer.body || '(empty)'}
          </pre>
        </div>
      )}
    </form>
  );
}
