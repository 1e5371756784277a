// The hosts a reactor's fetch may reach, from `host[:port]` entries (VAULT_REACTOR_ALLOWED_HOSTS).

const ENTRY = /^(\[[0-9A-Fa-f:.]+\]|[\p{L}\p{N}._-]+)(?::(\d{1,5}))?$/u;

const DEFAULT_PORTS: Record<string, string | undefined> = { 'http:': '80', 'https:': '443' };

interface AllowedHost {
  hostname: string;
  /** null: the default port of the URL's scheme only (80 for http, 443 for https). */
  port: string | null;
}

/**
 * `api.example.com` allows that host on the default port of its scheme (`http://api.example.com`,
 * `https://api.example.com`, not `https://api.example.com:8443`); `api.example.com:8443` allows that port only.
 * Names compare as the URL parser normalises them (lower case, punycode, `127.1` is `127.0.0.1`); no wildcards.
 */
export class AllowedHosts {
  private constructor(private readonly hosts: readonly AllowedHost[]) {}

  /** Throws a RangeError naming the first entry that is not `host` or `host:port` (a configuration mistake). */
  static parse(entries: readonly string[]): AllowedHosts {
    return new AllowedHosts(entries.map(parseEntry));
  }

  get isEmpty(): boolean {
    return this.hosts.length === 0;
  }

  allows(url: URL): boolean {
    const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : url.port;
    return this.hosts.some(
      (host) => host.hostname === url.hostname && (host.port === null ? url.port === '' : host.port === port),
    );
  }
}

const parseEntry = (entry: string): AllowedHost => {
  const match = ENTRY.exec(entry.trim());
  const port = match?.[2];
  if (!match || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
    throw new RangeError(`Allowed host "${entry}" is not host or host:port (e.g. api.example.com or 127.0.0.1:8080).`);
  }
  let url: URL;
  try {
    url = new URL(`http://${match[1]}`);
  } catch {
    throw new RangeError(`Allowed host "${entry}" is not a valid host name.`);
  }
  // Written the way URL.port is, so `:80` stays a port of its own and `:0080` is `80`.
  return { hostname: url.hostname, port: port === undefined ? null : String(Number(port)) };
};
