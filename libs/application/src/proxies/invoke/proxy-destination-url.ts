// The URL a proxied request goes to: the destination with the path and query after `/proxy` appended, never outside the
// destination's own path.
import { validationError } from '@vault/domain';

/**
 * `destination` + `path` + `query`. The path may not climb out of the destination's path (`..` or its
 * percent-encoded forms): a destination names where the proxy may send, not a host to roam.
 */
export const destinationUrl = (destination: string, path: string, query: string): URL => {
  const url = new URL(destination);
  const base = url.pathname;
  if (path !== '' && path !== '/') {
    url.pathname = base.replace(/\/$/, '') + (path.startsWith('/') ? path : `/${path}`);
    const within = base.endsWith('/') ? base : `${base}/`;
    if ((url.pathname !== base && !url.pathname.startsWith(within)) || DOT_DOT.test(decodedFully(url.pathname))) {
      throw validationError({ path: ['The path after /proxy may not leave the destination\'s path (no ".." segments).'] }, 'The path after /proxy leaves the destination\'s path.');
    }
  }
  if (query !== '') url.search = url.search === '' ? `?${query}` : `${url.search}&${query}`;
  url.hash = '';
  return url;
};

/**
 * A `..` segment, between slashes or backslashes (which many servers take for slashes), also with a path parameter
 * (`..;x`, which servlet containers drop before resolving the `..`).
 */
const DOT_DOT = /(?:^|[/\\])\.\.(?:[/\\;]|$)/;

/**
 * The path as a destination that decodes it, even more than once, would read it. The URL parser has already resolved
 * the `..` segments it sees; one that is left here was hidden behind `%2F`, `%5C` or a `%25` (`..%2F`, `%252e%252e`).
 */
const decodedFully = (pathname: string): string => {
  let text = pathname;
  for (let i = 0; i < 5; i++) {
    const next = text.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (next === text) break;
    text = next;
  }
  return text;
};
