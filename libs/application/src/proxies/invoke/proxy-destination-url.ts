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
    if (url.pathname !== base && !url.pathname.startsWith(within)) {
      throw validationError({ path: ['The path after /proxy may not leave the destination\'s path (no ".." segments).'] }, 'The path after /proxy leaves the destination\'s path.');
    }
  }
  if (query !== '') url.search = url.search === '' ? `?${query}` : `${url.search}&${query}`;
  url.hash = '';
  return url;
};
