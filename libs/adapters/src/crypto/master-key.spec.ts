import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMasterKey, MASTER_KEY_FILE, MasterKeyError } from './master-key';

let dataDir: string;
beforeEach(() => {
  dataDir = join(mkdtempSync(join(tmpdir(), 'vault-master-')), 'data');
});
afterEach(() => rmSync(join(dataDir, '..'), { recursive: true, force: true }));

const messageOf = (load: () => unknown): string => {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(MasterKeyError);
    return (error as Error).message;
  }
  throw new Error('loadMasterKey accepted the key');
};

describe('VAULT_MASTER_KEY', () => {
  it('is used when it is the base64 of 32 bytes', () => {
    const key = randomBytes(32);
    const loaded = loadMasterKey({ configured: key.toString('base64'), dataDir, allowGenerated: true });
    expect(loaded).toEqual({ key, source: 'environment', generated: false });
  });

  it.each([
    ['16 bytes', randomBytes(16).toString('base64')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['not base64', 'this is not a key at all, but 44 chars long!'],
    ['hex', randomBytes(32).toString('hex')],
  ])('refuses %s with a message that does not repeat the value', (_, value) => {
    const message = messageOf(() => loadMasterKey({ configured: value, dataDir, allowGenerated: true }));
    expect(message).toContain('VAULT_MASTER_KEY must be the base64 encoding of exactly 32 bytes');
    expect(message).not.toContain(value);
  });

  it('is required outside embedded development', () => {
    expect(messageOf(() => loadMasterKey({ configured: undefined, dataDir, allowGenerated: false }))).toMatch(
      /VAULT_MASTER_KEY is not set/,
    );
  });
});

describe('the generated development key', () => {
  it('is created once, readable only by its owner, and flagged so the caller warns', () => {
    const first = loadMasterKey({ configured: undefined, dataDir, allowGenerated: true });
    const file = join(dataDir, MASTER_KEY_FILE);
    expect(first).toMatchObject({ source: 'file', generated: true, file });
    expect(first.key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.key.toString('base64'));

    const second = loadMasterKey({ configured: '', dataDir, allowGenerated: true });
    expect(second).toMatchObject({ source: 'file', generated: false });
    expect(second.key).toEqual(first.key);
  });

  it('refuses a damaged key file without printing its content', () => {
    loadMasterKey({ configured: undefined, dataDir, allowGenerated: true });
    const file = join(dataDir, MASTER_KEY_FILE);
    writeFileSync(file, 'c2hvcnQ=\n');
    const message = messageOf(() => loadMasterKey({ configured: undefined, dataDir, allowGenerated: true }));
    expect(message).toContain(`${file} must be the base64 encoding of exactly 32 bytes`);
    expect(message).not.toContain('c2hvcnQ=');
  });
});

describe('drafts of the generated key', () => {
  it('are removed at start-up when a process died while publishing one (older than a minute), not while one may be in use', () => {
    mkdirSync(dataDir, { recursive: true });
    const stale = join(dataDir, 'master.key.4242.00aa11bb22cc.tmp');
    const fresh = join(dataDir, 'master.key.4343.33dd44ee55ff.tmp');
    const unrelated = join(dataDir, 'master.key.notes.tmp');
    for (const file of [stale, fresh, unrelated]) writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const twoMinutesAgo = new Date(Date.now() - 120_000);
    for (const file of [stale, unrelated]) utimesSync(file, twoMinutesAgo, twoMinutesAgo);

    loadMasterKey({ configured: undefined, dataDir, allowGenerated: true });
    expect([stale, fresh, unrelated].map(existsSync)).toEqual([false, true, true]);
  });
});
