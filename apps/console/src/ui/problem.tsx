// How an API error is shown: a 403 names the permission it needs; a 400's field errors stay next to their fields, and
// only those no field on the form claims are listed here, each with its field's name.
import type { ApiError } from '../api';

const claimed = (key: string, fields: string[]) =>
  fields.some((name) => key === name || key.startsWith(`${name}.`) || key.startsWith(`${name}[`));

export function Problem(props: { error: ApiError | undefined; fields?: string[]; action?: string }) {
  const error = props.error;
  if (!error) return null;
  const permission = error.missingPermission;
  const unclaimed = Object.entries(error.errors).filter(([key]) => !claimed(key, props.fields ?? []));
  return (
    <div class="notice error" role="alert">
      {permission ? (
        <p>
          <strong>This key may not {props.action ?? 'do this'}.</strong> It needs the <code>{permission}</code> permission.
        </p>
      ) : (
        <p>
          <strong>{error.title}</strong>
          {error.detail && error.detail !== error.title ? <> {error.detail}</> : null}
          {error.status ? <span class="status"> (HTTP {error.status})</span> : null}
          {Object.keys(error.errors).length > 0 && unclaimed.length === 0 ? <> Each marked field below says what to change.</> : null}
        </p>
      )}
      {unclaimed.length > 0 && (
        <ul>
          {unclaimed.map(([key, messages]) => (
            <li key={key}>
              <code>{key}</code>: {messages.join(' ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A whole area the key may not use: says so, with the permission it needs, instead of an empty page. */
export function Forbidden(props: { error: ApiError; what: string }) {
  const permission = props.error.missingPermission ?? 'another';
  return (
    <div class="notice forbidden" role="status">
      <h2>Not allowed with this key</h2>
      <p>
        {props.what} needs the <code>{permission}</code> permission, which this key’s application does not hold.
      </p>
      <p class="hint">Sign in with a key that holds it, or ask whoever manages your applications to grant it.</p>
    </div>
  );
}
