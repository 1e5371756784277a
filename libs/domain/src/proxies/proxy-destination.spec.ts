import fc from 'fast-check';
import { ALLOWED_HOSTS, hostsOf } from './proxy.builders';
import { checkDestination, MAX_DESTINATION_URL_LENGTH } from './proxy-destination';

const NOT_HTTP = 'destination_url must be an http: or https: URL.';
const NOT_LISTED = 'destination_url must be on a host listed in VAULT_PROXY_ALLOWED_HOSTS.';

const problemOf = (text: unknown, hosts = ALLOWED_HOSTS): string | null => {
  const checked = checkDestination(text, 'destination_url', hosts);
  return 'problem' in checked ? checked.problem : null;
};

describe('checkDestination accepts', () => {
  it.each<[string, string, string]>([
    ['an https URL on a listed host', 'https://api.example.com/v1/charges', 'https://api.example.com/v1/charges'],
    ['an http URL on a listed host', 'http://api.example.com', 'http://api.example.com/'],
    ['a listed host:port', 'http://localhost:8080/hook?x=1', 'http://localhost:8080/hook?x=1'],
    ['the default port written out', 'https://api.example.com:443/v1', 'https://api.example.com/v1'],
    ['upper case scheme and host, as the URL parser lowers them', 'HTTPS://API.EXAMPLE.COM/V1', 'https://api.example.com/V1'],
    [`a URL of ${MAX_DESTINATION_URL_LENGTH} characters`, `https://api.example.com/${'p'.repeat(MAX_DESTINATION_URL_LENGTH - 24)}`, `https://api.example.com/${'p'.repeat(MAX_DESTINATION_URL_LENGTH - 24)}`],
  ])('%s', (_title, text, href) => {
    const checked = checkDestination(text, 'destination_url', ALLOWED_HOSTS);
    expect('url' in checked && checked.url.href).toBe(href);
  });
});

describe('checkDestination refuses, naming the field and never the URL', () => {
  it.each<[string, unknown, string]>([
    ['a missing destination', undefined, NOT_HTTP],
    ['an empty string', '', NOT_HTTP],
    ['a number', 443, NOT_HTTP],
    ['an object', { url: 'https://api.example.com' }, NOT_HTTP],
    ['text that is no URL', 'api.example.com/v1', NOT_HTTP],
    ['a relative path', '/v1/charges', NOT_HTTP],
    ['an ftp URL', 'ftp://api.example.com/file', NOT_HTTP],
    ['a file URL', 'file:///etc/passwd', NOT_HTTP],
    ['a javascript URL', 'javascript:alert(1)', NOT_HTTP],
    ['a data URL', 'data:text/plain,hello', NOT_HTTP],
    ['a websocket URL on a listed host', 'wss://api.example.com/socket', NOT_HTTP],
    ['a user name in the URL', 'https://admin@api.example.com/', 'destination_url may not hold a user name or password; send credentials in a header or the configuration.'],
    ['a password in the URL', 'https://:hunter2@api.example.com/', 'destination_url may not hold a user name or password; send credentials in a header or the configuration.'],
    ['a listed host used as a user name before another host', 'https://api.example.com@evil.example.net/', 'destination_url may not hold a user name or password; send credentials in a header or the configuration.'],
    ['a host that is not listed', 'https://evil.example.net/', NOT_LISTED],
    ['a subdomain of a listed host', 'https://x.api.example.com/', NOT_LISTED],
    ['a listed host on another port', 'https://api.example.com:8443/', NOT_LISTED],
    ['a host:port entry on its scheme\'s default port', 'http://localhost/', NOT_LISTED],
    ['a host listed only with a port of its own, on another one', 'http://localhost:8081/', NOT_LISTED],
    ['a URL longer than the limit', `https://api.example.com/${'p'.repeat(MAX_DESTINATION_URL_LENGTH)}`, `destination_url must be at most ${MAX_DESTINATION_URL_LENGTH} characters.`],
  ])('%s', (_title, text, problem) => {
    expect(problemOf(text)).toBe(problem);
  });

  it('says proxying is off when the operator listed no host', () => {
    expect(problemOf('https://api.example.com/', hostsOf())).toBe(
      'destination_url must be on a host listed in VAULT_PROXY_ALLOWED_HOSTS, which is empty: proxying is off.',
    );
  });

  it('names the field it is asked about, such as the SVC-PROXY-URL header of an ephemeral invocation', () => {
    const checked = checkDestination('https://evil.example.net/', 'SVC-PROXY-URL', ALLOWED_HOSTS);
    expect(checked).toEqual({ problem: 'SVC-PROXY-URL must be on a host listed in VAULT_PROXY_ALLOWED_HOSTS.' });
  });
});

describe('checkDestination, for every input', () => {
  const hostname = fc.domain().filter((host) => host !== 'api.example.com' && host !== 'localhost');
  const path = fc.webPath();

  it('refuses every http or https URL whose host is not on the list', () => {
    fc.assert(
      fc.property(fc.constantFrom('http', 'https'), hostname, fc.option(fc.integer({ min: 1, max: 65535 })), path, (scheme, host, port, rest) => {
        const text = `${scheme}://${host}${port === null ? '' : `:${port}`}${rest}`;
        expect(problemOf(text)).toEqual(expect.stringContaining('VAULT_PROXY_ALLOWED_HOSTS'));
      }),
    );
  });

  it('refuses every URL that is not http or https, even on a listed host', () => {
    const scheme = fc.stringMatching(/^[a-z][a-z0-9+.-]{0,9}$/).filter((s) => s !== 'http' && s !== 'https');
    fc.assert(
      fc.property(scheme, path, (s, rest) => {
        expect(problemOf(`${s}://api.example.com${rest}`)).toBe(NOT_HTTP);
      }),
    );
  });

  it('never quotes the URL it refuses', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const problem = problemOf(url);
        if (problem !== null) expect(problem).not.toContain(new URL(url).hostname);
      }),
    );
  });
});
