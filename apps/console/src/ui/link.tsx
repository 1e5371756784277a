import type { ComponentChildren } from 'preact';
import { BASE, navigate } from '../router';

/** An in-console link: a real href (open in a new tab works), navigated without a reload on a plain click. */
export function Link(props: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  const href = `${BASE}${props.to}`;
  return (
    <a
      href={href}
      class={props.class}
      aria-current={props.current ? 'page' : undefined}
      onClick={(event) => {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(props.to);
      }}
    >
      {props.children}
    </a>
  );
}
