// The oldest Meilisearch server the adapter works with, checked against GET /version before anything else runs.

/**
 * v1.18.0 added `rename` to the swapIndexes payload. Client 0.62 always sends it, and older servers refuse the unknown
 * field, so on them every rebuild would end in discard().
 */
export const MINIMUM_MEILISEARCH_VERSION = '1.18.0';

export interface MeiliVersion {
  major: number;
  minor: number;
  patch: number;
}

/**
 * `pkgVersion` of GET /version: `1.51.0`, or a pre-release such as `1.18.0-rc.1` or `1.50.0-speed-up-search.0`.
 * A pre-release counts as its release (the features it previews are what the check is about). null when unreadable.
 */
export function parseMeiliVersion(text: string): MeiliVersion | null {
  const match = /^v?(\d{1,9})\.(\d{1,9})\.(\d{1,9})(?:[-+][0-9A-Za-z.+-]*)?$/.exec(text.trim());
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

export function compareMeiliVersions(a: MeiliVersion, b: MeiliVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

/** Why the server at `host` cannot be used, naming both versions; null when `reported` is at least the minimum. */
export function unsupportedMeiliVersion(host: string, reported: string, minimum = MINIMUM_MEILISEARCH_VERSION): string | null {
  const found = parseMeiliVersion(reported);
  const needed = parseMeiliVersion(minimum);
  if (!needed) throw new Error(`Invalid minimum Meilisearch version "${minimum}"`);
  if (found && compareMeiliVersions(found, needed) >= 0) return null;
  const what = found ? `runs v${reported.trim().replace(/^v/, '')}` : `reports the version "${reported}", which is not a version number`;
  return (
    `Meilisearch at ${host} ${what}; the vault needs v${minimum} or later ` +
    `(rebuilds swap indexes with "rename", which older servers refuse). Upgrade the server: docker-compose.yml pins a supported image.`
  );
}

export class UnsupportedMeilisearchVersion extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedMeilisearchVersion';
  }
}
