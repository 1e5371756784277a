// Pieces several areas share: the page heading with its actions, and the types of the API's objects.
import type { ComponentChildren } from 'preact';
import { Link } from '../ui/link';

export function PageHeader(props: { title: ComponentChildren; back?: { to: string; label: string }; children?: ComponentChildren; intro?: ComponentChildren }) {
  return (
    <header class="page-header">
      {props.back && (
        <p class="back">
          <Link to={props.back.to}>← {props.back.label}</Link>
        </p>
      )}
      <div class="title-row">
        <h1>{props.title}</h1>
        {props.children && <div class="actions">{props.children}</div>}
      </div>
      {props.intro && <p class="intro">{props.intro}</p>}
    </header>
  );
}

export const PAGE_SIZES = [10, 20, 50, 100];

/** `page` from the URL, 1 when absent or not a positive integer. */
export function pageParam(params: URLSearchParams): number {
  const page = Number(params.get('page'));
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** Splits a list typed one per line or comma-separated; blanks dropped. */
export function splitList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter(Boolean);
}
