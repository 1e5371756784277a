// Showing values as text, exactly: JSON as the API sent it, dates readable with the ISO value in a tooltip.
import type { ComponentChildren } from 'preact';

export function Json(props: { value: unknown; label?: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={props.label}>
      {JSON.stringify(props.value, null, 2)}
    </pre>
  );
}

/** Token data as the key's rule shows it: a string as is, any other JSON as JSON; absent when the rule hides it. */
export function TokenData(props: { token: { data?: unknown }; block?: boolean }) {
  if (!('data' in props.token) || props.token.data === undefined) return <span class="muted">not shown to this key</span>;
  const { data } = props.token;
  const text = typeof data === 'string' ? data : JSON.stringify(data, null, props.block ? 2 : undefined);
  return props.block ? <pre class="json data">{text}</pre> : <code class="data">{text}</code>;
}

export function When(props: { at?: string | null }) {
  if (!props.at) return <span class="muted">—</span>;
  const date = new Date(props.at);
  const text = Number.isNaN(date.getTime()) ? props.at : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <time dateTime={props.at} title={props.at}>
      {text}
    </time>
  );
}

export function Id(props: { value?: string | null }) {
  return props.value ? <code class="id">{props.value}</code> : <span class="muted">—</span>;
}

export function Badge(props: { children: ComponentChildren; tone?: 'ok' | 'warn' | 'bad' | 'info' }) {
  return <span class={`badge ${props.tone ?? ''}`}>{props.children}</span>;
}

/** Definition list of label → value rows. */
export function Facts(props: { rows: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="facts">
      {props.rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A local `datetime-local` value as an ISO instant, or undefined when empty. */
export function isoFromLocal(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** Parses JSON typed by the user; a parse failure becomes a field error under `field`. */
export function parseJson(text: string, field: string): { value?: unknown; errors?: Record<string, string[]> } {
  if (!text.trim()) return { value: undefined };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { errors: { [field]: [`${field} is not valid JSON: ${(error as Error).message}`] } };
  }
}
