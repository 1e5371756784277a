// The host side of a reactor's `fetch`: Node's fetch, only to allowed hosts, redirects checked hop by hop, bodies capped.
import type { AllowedHosts } from './allowed-hosts';
import { isCorsSafelistedRequestHeader } from './cors-safelisted-header';

export interface SandboxFetchPolicy {
  allowedHosts: AllowedHosts;
  /** Largest response body read, in bytes after decompression; a larger one fails the fetch. */
  maxResponseBytes: number;
  /** Redirects followed before the fetch fails. */
  maxRedirects: number;
}

/** What the sandbox asks for: `fetch(url, { method, headers, body })`, as plain data. */
export interface SandboxFetchRequest {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface SandboxFetchResponse {
  status: number;
  /** The URL answered, after redirects. */
  url: string;
  /** Lower-case names, in the order received; repeated headers joined with `, ` except `set-cookie`. */
  headers: [string, string][];
  /** The body decoded as UTF-8 (invalid bytes become U+FFFD). */
  body: string;
}

/** A refusal or failure has a message for the code (it becomes a TypeError inside the sandbox). */
export type SandboxFetchAnswer = { error: null; response: SandboxFetchResponse } | { error: string; response: null };

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[^\0\r\n]*$/;
/** The standard's request-body header names, and `content-length`, which the code may have set to its body's length. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

class Refused extends Error {}

/**
 * Serves one `fetch` of the sandboxed code. Never rejects: a refusal (host, scheme, redirect, size) or a network
 * failure is an answer with an `error` for the code. Messages name no host, port, path, query, header value or body:
 * the URL may come from the reactor's configuration, and the code's error reaches a caller who may not read it.
 */
export const sandboxFetch = async (
  request: unknown,
  policy: SandboxFetchPolicy,
  signal: AbortSignal,
): Promise<SandboxFetchAnswer> => {
  try {
    const checked = checkRequest(request);
    let url = allowedUrl(checked.url, policy, 'fetch refused');
    let { method, body, headers } = checked;
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(url, { method, headers, body, redirect: 'manual', signal });
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) {
        return { error: null, response: await responseOf(url, response, policy.maxResponseBytes) };
      }
      await response.body?.cancel();
      if (redirects >= policy.maxRedirects) throw new Refused(`fetch refused: more than ${policy.maxRedirects} redirects.`);
      const next = allowedUrl(resolve(location, url), policy, 'fetch refused: redirected');
      // Any header but the safelisted few may be a credential meant for the origin the code named (`x-api-key`, a
      // signature); another allowed host is another party, so it gets only what a browser would send it unasked.
      if (next.origin !== url.origin) headers = safelisted(headers);
      // As the Fetch standard: 303 turns anything but GET and HEAD into GET, 301 and 302 turn POST into GET, each without
      // its body; 307 and 308 repeat the method and the body.
      if ((response.status === 303 && method !== 'GET' && method !== 'HEAD') || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        for (const name of BODY_HEADERS) delete headers[name];
      }
      url = next;
    }
  } catch (error) {
    if (error instanceof Refused) return { error: error.message, response: null };
    if (signal.aborted) return { error: 'fetch aborted: the reactor ran out of time.', response: null };
    return { error: `fetch failed${causeCode(error)}.`, response: null };
  }
};

interface CheckedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const checkRequest = (request: unknown): CheckedRequest => {
  if (typeof request !== 'object' || request === null) throw new Refused('fetch: the request is not valid.');
  const { url, method = 'GET', headers = {}, body } = request as Record<string, unknown>;
  if (typeof url !== 'string') throw new Refused('fetch: the URL must be a string.');
  if (typeof method !== 'string' || !METHODS.has(method.toUpperCase())) {
    throw new Refused(`fetch: the method must be one of ${[...METHODS].join(', ')}.`);
  }
  if (body !== undefined && typeof body !== 'string') throw new Refused('fetch: the body must be a string (use JSON.stringify).');
  const upper = method.toUpperCase();
  if (body !== undefined && (upper === 'GET' || upper === 'HEAD')) throw new Refused(`fetch: a ${upper} request cannot have a body.`);
  return { url, method: upper, headers: checkHeaders(headers), body };
};

const checkHeaders = (headers: unknown): Record<string, string> => {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new Refused('fetch: headers must be an object of names to strings.');
  }
  const checked: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name)) throw new Refused('fetch: a header name is not a valid HTTP header name.');
    if (typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new Refused(`fetch: the value of header ${name.slice(0, 100)} is not valid (a string without line breaks).`);
    }
    checked[name.toLowerCase()] = value;
  }
  return checked;
};

const safelisted = (headers: Record<string, string>): Record<string, string> => {
  const kept: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) if (isCorsSafelistedRequestHeader(name, value)) kept[name] = value;
  return kept;
};

const resolve = (location: string, base: URL): string => {
  try {
    return new URL(location, base).href;
  } catch {
    throw new Refused('fetch refused: redirected to a URL that is not valid.');
  }
};

const allowedUrl = (text: string, policy: SandboxFetchPolicy, refusal: string): URL => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Refused('fetch: the URL is not valid.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Refused(`${refusal}: only http: and https: URLs are allowed.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new Refused(`${refusal}: a URL may not hold a user name or password; send credentials in a header.`);
  }
  if (!policy.allowedHosts.allows(url)) {
    throw new Refused(
      policy.allowedHosts.isEmpty
        ? `${refusal}: the host is not in VAULT_REACTOR_ALLOWED_HOSTS (which is empty: reactors have no network).`
        : `${refusal}: the host is not in VAULT_REACTOR_ALLOWED_HOSTS.`,
    );
  }
  return url;
};

const responseOf = async (url: URL, response: Response, maxBytes: number): Promise<SandboxFetchResponse> => {
  const tooLarge = `fetch refused: the response is larger than ${maxBytes} bytes.`;
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new Refused(tooLarge);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body?.getReader();
  // Read chunk by chunk and stop at the cap: the body is never held whole past it, however long the server goes on.
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
    size += chunk.value.byteLength;
    if (size > maxBytes) {
      await reader?.cancel();
      throw new Refused(tooLarge);
    }
    chunks.push(chunk.value);
  }
  return {
    status: response.status,
    url: url.href,
    headers: [...response.headers],
    body: new TextDecoder().decode(Buffer.concat(chunks)),
  };
};

/** ` (ECONNREFUSED)` from undici's `fetch failed` and its cause, or nothing: never the cause's message. */
const causeCode = (error: unknown): string => {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | null)?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : '';
};
