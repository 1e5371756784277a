// Small helpers over the Meilisearch client: waiting for tasks, and reading every document a filter matches.
import { MeilisearchApiError, type EnqueuedTaskPromise, type Index, type RecordAny, type WaitOptions } from 'meilisearch';
import { meiliQuote } from './meili-collection';

// Documents per fetch page: small enough for one response each.
const FETCH_PAGE = 1000;

/** Waits for a task and throws unless it succeeded (or failed with one of the `tolerated` error codes). */
export async function settle(task: EnqueuedTaskPromise, wait: WaitOptions, tolerated: string[] = []): Promise<void> {
  const done = await task.waitTask(wait);
  if (done.status === 'succeeded') return;
  if (done.status === 'failed' && done.error && tolerated.includes(done.error.code)) return;
  const reason = done.error ? `${done.error.code}: ${done.error.message}` : done.status;
  throw new Error(`Meilisearch task ${done.uid} (${done.type} on ${done.indexUid ?? 'all indexes'}) did not succeed: ${reason}`);
}

/** Waits for every task (none is left running unobserved), then throws the first failure. */
export async function settleAll(tasks: EnqueuedTaskPromise[], wait: WaitOptions, tolerated: string[] = []): Promise<void> {
  const results = await Promise.allSettled(tasks.map((task) => settle(task, wait, tolerated)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Every document matching `filter` (all of them without one), with only `fields` when given, page by page: the
 * documents route ignores maxTotalHits. Keyed by id: a write between two pages may shift offsets, and a document must
 * not be returned twice.
 */
export async function fetchAll(index: Index, filter?: string[], fields?: string[]): Promise<RecordAny[]> {
  const found = new Map<string, RecordAny>();
  for (let offset = 0; ; offset += FETCH_PAGE) {
    const page = await index.getDocuments<RecordAny>({ ...(filter && { filter }), ...(fields && { fields }), offset, limit: FETCH_PAGE });
    for (const hit of page.results) found.set(String(hit.id), hit);
    if (page.results.length === 0 || offset + page.results.length >= page.total) return [...found.values()];
  }
}

export const idIn = (ids: string[]): string => `id IN [${ids.map(meiliQuote).join(', ')}]`;

export function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export const isApiError = (error: unknown, code: string): boolean =>
  error instanceof MeilisearchApiError && error.cause?.code === code;
