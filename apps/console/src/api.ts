// The one way the console talks to the vault: the public API on this origin, with the signed-in key in SVC-API-KEY.
// Error answers are problem details; ApiError keeps their `errors` by field so forms can show each next to its field.
import { apiKey, signOut } from './session';

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    readonly detail: string | undefined,
    readonly errors: FieldErrors,
  ) {
    super(detail ?? title);
  }

  /** The permission a 403 from the access check names (`The application lacks the token:search permission.`). */
  get missingPermission(): string | undefined {
    return this.status === 403 ? /lacks the (\S+) permission/.exec(this.detail ?? '')?.[1] : undefined;
  }
}

export interface Page<T> {
  pagination: { total_items: number; page_number: number; page_size: number; total_pages: number };
  data: T[];
}

export interface RequestOptions {
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** A key to use instead of the signed-in one (the sign-in check). */
  key?: string;
}

export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const key = options.key ?? apiKey();
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (key) headers['SVC-API-KEY'] = key;
  if (options.body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    });
  } catch {
    throw new ApiError(0, 'The vault could not be reached', 'Check that the service is running, then try again.', {});
  }
  const body = await readBody(response);
  if (response.ok) return body as T;
  const problem = (typeof body === 'object' && body !== null ? body : {}) as Partial<{ title: string; detail: string; errors: FieldErrors }>;
  const error = new ApiError(response.status, problem.title ?? response.statusText, problem.detail, problem.errors ?? {});
  // The signed-in key stopped working (regenerated, deleted, expired, its tenant deleted): back to the sign-in page.
  if (response.status === 401 && options.key === undefined && key) signOut(error.detail ?? 'The API key is no longer valid.');
  return Promise.reject(error);
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `?a=1&b=x` from the defined, non-empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

export const enc = encodeURIComponent;
