// Loading, empty and failed states, and the one switch every page uses to pick between them and its content.
import type { ComponentChildren } from 'preact';
import type { Loaded } from './use-load';
import { Forbidden, Problem } from './problem';

export function Loading(props: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading{props.what ? ` ${props.what}` : ''}…
    </p>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <div class="empty">{props.children}</div>;
}

/** Loading first; a 403 as Forbidden naming the permission; other errors with a retry; else the content. */
export function Loader<T>(props: { loaded: Loaded<T>; what: string; forbidden: string; children: (data: T) => ComponentChildren }) {
  const { data, error, loading, reload } = props.loaded;
  if (error?.status === 403) return <Forbidden error={error} what={props.forbidden} />;
  if (error)
    return (
      <div>
        <Problem error={error} />
        <button type="button" onClick={reload}>
          Try again
        </button>
      </div>
    );
  if (data === undefined) return loading ? <Loading what={props.what} /> : null;
  return <div aria-busy={loading ? 'true' : undefined}>{props.children(data)}</div>;
}
