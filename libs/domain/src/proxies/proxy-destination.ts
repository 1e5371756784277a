// Where a proxy may send a request: an http: or https: URL, without credentials in it, on a host the operator listed.
// Asked of a proxy's destination_url when it is written and of an ephemeral invocation's SVC-PROXY-URL when it is used.

/** Longest destination URL accepted, in characters. */
export const MAX_DESTINATION_URL_LENGTH = 2_048;

/** The operator's list of hosts, as the adapter that parsed it answers. */
export interface DestinationHosts {
  allows(url: URL): boolean;
  readonly isEmpty: boolean;
}

/** The URL, or the reason it may not be a destination (a message that names the field, never the URL). */
export const checkDestination = (
  text: unknown,
  field: string,
  hosts: DestinationHosts,
  /** The setting that lists the hosts, and what an empty list turns off. */
  list: { setting: string; feature: string } = { setting: 'VAULT_PROXY_ALLOWED_HOSTS', feature: 'proxying' },
): { url: URL } | { problem: string } => {
  if (typeof text !== 'string' || text.length === 0) return { problem: `${field} must be an http: or https: URL.` };
  if (text.length > MAX_DESTINATION_URL_LENGTH) return { problem: `${field} must be at most ${MAX_DESTINATION_URL_LENGTH} characters.` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `${field} must be an http: or https: URL.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `${field} must be an http: or https: URL.` };
  if (url.username !== '' || url.password !== '') {
    return { problem: `${field} may not hold a user name or password; send credentials in a header or the configuration.` };
  }
  if (!hosts.allows(url)) {
    return {
      problem: hosts.isEmpty
        ? `${field} must be on a host listed in ${list.setting}, which is empty: ${list.feature} is off.`
        : `${field} must be on a host listed in ${list.setting}.`,
    };
  }
  return { url };
};
