// The projector lease on one data dir, as two processes' connections see it, on a clock the spec moves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PROJECTOR_LEASE_FILE, SqliteProjectorLease } from './projector-lease';

const TIMES = { expireMs: 5000, safeMs: 3000 };

describe('SqliteProjectorLease', () => {
  let dir: string;
  let now: number;
  let first: SqliteProjectorLease;
  let second: SqliteProjectorLease;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vault-lease-'));
    now = 1_000_000;
    first = SqliteProjectorLease.open(dir, TIMES, () => now);
    second = SqliteProjectorLease.open(dir, TIMES, () => now);
  });
  afterEach(() => {
    first.close();
    second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is held by one process at a time, renewed by its holder, refused to the other while renewed', async () => {
    expect(await first.acquire()).toBe(true);
    expect(await second.acquire()).toBe(false);
    now += 4000;
    expect(await first.acquire()).toBe(true);
    now += 4000;
    expect(await second.acquire()).toBe(false);
    expect(await first.acquire()).toBe(true);
    expect([first.holds(), second.holds()]).toEqual([true, false]);
    expect(second.holder()).toBe(first.owner);
  });

  it.each([
    ['just before the lease expires', 5000, false],
    ['once it has expired', 5001, true],
  ])('a holder that stopped renewing: the other takes it %s', async (_, waitedMs, taken) => {
    expect(await first.acquire()).toBe(true);
    now += waitedMs;
    expect(await second.acquire()).toBe(taken);
  });

  it('its holder stops counting on it well before anyone else may take it', async () => {
    expect(await first.acquire()).toBe(true);
    now += 2999;
    expect(first.holds()).toBe(true);
    now += 1;
    expect(first.holds()).toBe(false);
    // Still its own on renewal, as nobody took it meanwhile.
    expect(await first.acquire()).toBe(true);
    expect(first.holds()).toBe(true);
  });

  it('a released lease is taken at the next try, and the one who lost it knows', async () => {
    expect(await first.acquire()).toBe(true);
    await first.release();
    expect(first.holds()).toBe(false);
    expect(await second.acquire()).toBe(true);
    expect(await first.acquire()).toBe(false);
    expect(first.holds()).toBe(false);
  });

  it('lives in an owner-only file of the data dir', () => {
    expect(statSync(join(dir, PROJECTOR_LEASE_FILE)).mode & 0o777).toBe(0o600);
  });

  it.each([
    ['a process of this host that is gone (a crash): taken at once', (pid: number) => pid, true, null],
    ['a running process of this host: kept until it expires', () => process.pid, false, null],
    ['a process of another host: kept until it expires', (pid: number) => pid, false, 'elsewhere'],
  ] as const)('a lease held by %s', async (_, pidOf, taken, host) => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    expect(await first.acquire()).toBe(true);
    const [ownHost, namespace] = first.owner.split('/');
    const owner = `${host ?? ownHost}/${namespace}/${pidOf(gone)}/0badc0de`;
    const db = new Database(join(dir, PROJECTOR_LEASE_FILE));
    db.prepare('UPDATE projector_lease SET owner = ?').run(owner);
    db.close();
    expect(await second.acquire()).toBe(taken);
  });
});
