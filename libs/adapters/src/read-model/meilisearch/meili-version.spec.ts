import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compareMeiliVersions,
  parseMeiliVersion,
  unsupportedMeiliVersion,
  type MeiliVersion,
} from './meili-version';

const v = (text: string): MeiliVersion => {
  const parsed = parseMeiliVersion(text);
  if (!parsed) throw new Error(`not a version: ${text}`);
  return parsed;
};

describe('parseMeiliVersion', () => {
  it.each([
    ['1.51.0', { major: 1, minor: 51, patch: 0 }],
    ['1.12.3', { major: 1, minor: 12, patch: 3 }],
    ['v1.18.0', { major: 1, minor: 18, patch: 0 }],
    ['1.18.0-rc.1', { major: 1, minor: 18, patch: 0 }],
    ['1.50.0-speed-up-search-requests.1', { major: 1, minor: 50, patch: 0 }],
    [' 2.0.0\n', { major: 2, minor: 0, patch: 0 }],
  ])('%j', (text, expected) => {
    expect(parseMeiliVersion(text)).toEqual(expected);
  });

  it.each(['', 'latest', '1.18', '1.x.0', '1.18.0.1', 'one.two.three', '1.18.0 and more'])('%j is not a version', (text) => {
    expect(parseMeiliVersion(text)).toBeNull();
  });
});

describe('compareMeiliVersions', () => {
  it.each([
    ['1.18.0', '1.18.0', 0],
    ['1.12.3', '1.18.0', -1],
    ['1.9.9', '1.18.0', -1], // numerically, not as text
    ['1.18.1', '1.18.0', 1],
    ['1.100.0', '1.51.0', 1],
    ['2.0.0', '1.99.99', 1],
    ['0.30.5', '1.0.0', -1],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareMeiliVersions(v(a), v(b)))).toBe(sign);
  });
});

describe('unsupportedMeiliVersion', () => {
  const host = 'http://meilisearch:7700';

  it('refuses v1.17, the last server without swapIndexes rename, naming both versions', () => {
    expect(unsupportedMeiliVersion(host, '1.17.1')).toMatch(/v1\.17\.1.*v1\.18\.0/);
  });

  it.each(['1.18.0', '1.18.0-rc.0', '1.51.0', '1.51.2', '2.0.0'])('accepts %s', (reported) => {
    expect(unsupportedMeiliVersion(host, reported)).toBeNull();
  });

  it.each([
    ['1.12.3', 'Meilisearch at http://meilisearch:7700 runs v1.12.3; the vault needs v1.18.0 or later'],
    ['1.17.1', 'runs v1.17.1; the vault needs v1.18.0 or later'],
    ['0.30.5', 'runs v0.30.5; the vault needs v1.18.0 or later'],
  ])('refuses %s, naming both versions', (reported, expected) => {
    expect(unsupportedMeiliVersion(host, reported)).toContain(expected);
  });

  it('refuses a version it cannot read, quoting what the server said', () => {
    expect(unsupportedMeiliVersion(host, 'nightly')).toContain('reports the version "nightly", which is not a version number; the vault needs v1.18.0');
  });

  it('takes the minimum as a parameter', () => {
    expect(unsupportedMeiliVersion(host, '1.51.0', '1.52.0')).toContain('runs v1.51.0; the vault needs v1.52.0');
    expect(() => unsupportedMeiliVersion(host, '1.51.0', 'latest')).toThrow(/minimum/);
  });
});

describe('docker-compose.yml', () => {
  it('pins a Meilisearch image the vault accepts', () => {
    const compose = readFileSync(join(__dirname, '../../../../../docker-compose.yml'), 'utf8');
    const image = /image:\s*getmeili\/meilisearch:v(\S+)/.exec(compose);
    expect(image).not.toBeNull();
    // A minor tag (v1.51) follows patch releases; its first release is the oldest it can resolve to.
    const tag = /^\d+\.\d+$/.test(image![1]) ? `${image![1]}.0` : image![1];
    expect(unsupportedMeiliVersion('compose', tag)).toBeNull();
  });
});
