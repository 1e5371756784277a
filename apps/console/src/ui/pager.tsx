import type { Page } from '../api';

/** "Page 2 of 5 · 93 tokens", with previous and next. */
export function Pager(props: { pagination: Page<unknown>['pagination']; noun: string; onPage: (page: number) => void }) {
  const { page_number, total_pages, total_items } = props.pagination;
  if (total_items === 0) return null;
  return (
    <nav class="pager" aria-label={`Pages of ${props.noun}`}>
      <button type="button" disabled={page_number <= 1} onClick={() => props.onPage(page_number - 1)}>
        ← Previous
      </button>
      <span>
        Page {page_number} of {Math.max(total_pages, 1)} · {total_items} {props.noun}
      </span>
      <button type="button" disabled={page_number >= total_pages} onClick={() => props.onPage(page_number + 1)}>
        Next →
      </button>
    </nav>
  );
}
