// `vault backup` and `vault restore` as an operator runs them, against a running built API taking a burst of writes:
// what a restore brings back (every create answered before the backup began, readable), that its read models equal a
// rebuild, what it refuses (a non-empty data dir, a tampered file, the wrong master key), and that no backup file holds
// token data.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filesUnder, tooOpen } from '../support/data-dir';
import { ApiProcess, runCli, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'backup-spec-bootstrap-key-0123456789abcdef';
const MASTER = randomBytes(32).toString('base64');
const WORKERS = 6;

interface Created {
  id: string;
  data: string;
  answeredAt: number;
}

/**
 * The read model's tables, row for row, as test/projections/rebuild.spec.ts compares them; token_changes too is left
 * out: it is the live projector's feed of changes to other processes' search bitmaps, which a rebuild starts empty.
 */
function dumpReadModel(dataDir: string): Record<string, unknown[]> {
  const file = readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim();
  const db = new Database(join(dataDir, 'readmodel', file), { readonly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('broad_terms', 'token_index_state', 'planner_statistics', 'token_changes') ORDER BY name",
      )
      .all() as Array<{ name: string }>;
    return Object.fromEntries(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM ${name} ORDER BY 1`).all()]));
  } finally {
    db.close();
  }
}

async function waitForReady(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await fetch(`${url}/health/ready`)).status !== 200) {
    if (Date.now() > deadline) throw new Error(`${url} was not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs `task` over `items`, `concurrency` at a time. */
async function eachLimited<T>(items: T[], concurrency: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
}

describe('vault backup and restore', () => {
  let parent: string;
  let dataDir: string;
  let backupDir: string;
  let key: string;
  let backupBegan: number;
  let backupEnded: number;
  const created: Created[] = [];
  let deletedBefore: Created;
  let deletedAfter: Created;
  let createdAfter: Created;
  let backupRun: Awaited<ReturnType<typeof runCli>>;
  const started: ApiProcess[] = [];

  const call = (url: string, path: string, init: RequestInit = {}) =>
    fetch(url + path, { ...init, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' } });
  const create = async (url: string, data: string): Promise<Created | null> => {
    const response = await call(url, '/tokens', { method: 'POST', body: JSON.stringify({ type: 'token', data }) });
    if (response.status !== 201) return null;
    return { id: ((await response.json()) as { id: string }).id, data, answeredAt: Date.now() };
  };
  const restoreEnv = (dir: string, extra: Record<string, string> = {}) => ({ VAULT_DATA_DIR: dir, VAULT_MASTER_KEY: MASTER, ...extra });
  const startApi = async (env: Record<string, string>) => {
    const child = await startApiProcess({ VAULT_RATE_LIMIT_PER_SECOND: '100000', ...env });
    started.push(child);
    return child;
  };

  beforeAll(async () => {
    parent = mkdtempSync(join(tmpdir(), 'vault-backup-'));
    dataDir = join(parent, 'data');
    backupDir = join(parent, 'backup');
    const api = await startApi({ VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER, VAULT_BOOTSTRAP_KEY: BOOTSTRAP });
    const app = await fetch(`${api.url}/applications`, {
      method: 'POST',
      headers: { 'SVC-API-KEY': BOOTSTRAP, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: 'backup-reader',
        type: 'private',
        permissions: ['token:create', 'token:read', 'token:delete'],
        rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read', 'token:delete'] }],
      }),
    });
    expect(app.status).toBe(201);
    key = ((await app.json()) as { key: string }).key;
    const url = api.url;

    deletedBefore = (await create(url, `deleted-before-${randomBytes(8).toString('hex')}`))!;
    expect((await call(url, `/tokens/${deletedBefore.id}`, { method: 'DELETE' })).status).toBe(204);
    deletedAfter = (await create(url, `deleted-after-${randomBytes(8).toString('hex')}`))!;

    // The burst: creates from several clients at once, before, during and after the backup.
    let stop = false;
    let n = 0;
    const burst = Array.from({ length: WORKERS }, async () => {
      while (!stop) {
        const token = await create(url, `burst-${n++}-${randomBytes(8).toString('hex')}`);
        if (token) created.push(token);
      }
    });
    while (created.length < 60) await new Promise((resolve) => setTimeout(resolve, 10));
    backupBegan = Date.now();
    backupRun = await runCli(['backup', '--out', backupDir], { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER });
    backupEnded = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 100));
    stop = true;
    await Promise.all(burst);

    createdAfter = (await create(url, `created-after-${randomBytes(8).toString('hex')}`))!;
    // Deleted after the snapshot: its key is destroyed here, but the backup's keys file still holds it.
    expect((await call(url, `/tokens/${deletedAfter.id}`, { method: 'DELETE' })).status).toBe(204);
  }, 60_000);

  afterAll(async () => {
    for (const child of started) await child.stop();
    rmSync(parent, { recursive: true, force: true });
  });

  it('writes the event log, the key store apart, and a manifest with versions, position and checksums, owner-only', () => {
    expect(backupRun.code).toBe(0);
    const result = JSON.parse(backupRun.stdout);
    expect(result).toMatchObject({ out: backupDir, events: expect.any(Number), position: expect.stringMatching(/^\d+:\d+$/) });
    expect(backupRun.stderr).toMatch(/^backup: events\.sqlite: \d+ events/m);
    expect(backupRun.stderr).toMatch(/^backup: keys\.sqlite:/m);
    expect(readdirSync(backupDir).sort()).toEqual(['events.sqlite', 'keys.sqlite', 'manifest.json']);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 1,
      vault_version: JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')).version,
      read_model_layout: expect.any(Number),
      event_position: result.position,
      master_key: 'environment',
      files: {
        'events.sqlite': { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) },
        'keys.sqlite': { sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: expect.any(Number) },
      },
    });
    expect(tooOpen(backupDir)).toEqual([]);
  });

  it('holds no token data in any file: not as text, hex or base64', () => {
    const secrets = [deletedBefore, deletedAfter, ...created.slice(0, 50)].map((t) => t.data);
    const files = filesUnder(backupDir);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const secret of secrets) {
        for (const [form, needle] of [
          ['text', Buffer.from(secret)],
          ['hex', Buffer.from(Buffer.from(secret).toString('hex'))],
          ['base64', Buffer.from(Buffer.from(secret).toString('base64'))],
          ['utf-16', Buffer.from(secret, 'utf16le')],
        ] as const) {
          if (bytes.includes(needle)) throw new Error(`${file} holds token data (${form})`);
        }
      }
    }
    // The scan reads stored content: the events are there, by their type.
    expect(readFileSync(join(backupDir, 'events.sqlite')).includes(Buffer.from('TokenCreated'))).toBe(true);
  });

  it('refuses an --out that exists and is not empty', async () => {
    const refused = await runCli(['backup', '--out', backupDir], { VAULT_DATA_DIR: dataDir, VAULT_MASTER_KEY: MASTER });
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^vault: .*exists and is not empty/m);
  });

  it('restores a vault with every create answered before the backup began, readable, and read models equal to a rebuild', async () => {
    const restored = join(parent, 'restored');
    const result = await runCli(['restore', '--from', backupDir], restoreEnv(restored));
    expect(result.stderr).toMatch(/^restore: events\.sqlite: checksum verified/m);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data_dir: restored, position: JSON.parse(backupRun.stdout).position });
    expect(readdirSync(restored).sort()).toEqual(['events.sqlite', 'keys.sqlite']);

    // The first start finds no read model and replays the log into one; it equals a rebuild of that log.
    const first = await startApi(restoreEnv(restored));
    await waitForReady(first.url);
    await first.stop();
    const replayed = dumpReadModel(restored);
    const rebuild = await runCli(['projections', 'rebuild'], restoreEnv(restored));
    expect(rebuild.code).toBe(0);
    expect(dumpReadModel(restored)).toEqual(replayed);

    const second = await startApi(restoreEnv(restored));
    await waitForReady(second.url);
    const before = created.filter((t) => t.answeredAt < backupBegan);
    expect(before.length).toBeGreaterThanOrEqual(60);
    // The burst went on while the backup ran: the snapshot was taken under writes.
    expect(created.filter((t) => t.answeredAt > backupBegan && t.answeredAt < backupEnded).length).toBeGreaterThan(0);
    const missing: string[] = [];
    await eachLimited([...before, deletedAfter], 8, async (token) => {
      const response = await call(second.url, `/tokens/${token.id}`);
      const body = (await response.json()) as { data?: unknown };
      if (response.status !== 200 || body.data !== token.data) missing.push(`${token.id}: ${response.status} ${JSON.stringify(body.data)}`);
    });
    expect(missing).toEqual([]);
    // Deleted before the snapshot: still deleted. Created after the backup ended: not in it.
    expect((await call(second.url, `/tokens/${deletedBefore.id}`)).status).toBe(404);
    expect((await call(second.url, `/tokens/${createdAfter.id}`)).status).toBe(404);
    expect(createdAfter.answeredAt).toBeGreaterThan(backupEnded);
    // The restored vault takes writes.
    const fresh = await create(second.url, 'after-restore');
    expect(fresh).not.toBeNull();
    expect(tooOpen(restored)).toEqual([]);
  }, 60_000);

  it('refuses a data dir that is not empty, and leaves it as it was', async () => {
    const occupied = join(parent, 'occupied');
    mkdirSync(occupied, { mode: 0o700 });
    writeFileSync(join(occupied, 'notes.txt'), 'mine');
    const refused = await runCli(['restore', '--from', backupDir], restoreEnv(occupied));
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/^vault: the data dir .* is not empty/m);
    expect(readdirSync(occupied)).toEqual(['notes.txt']);
  });

  it.each(['events.sqlite', 'keys.sqlite'])('refuses a backup whose %s was altered, naming it, and restores nothing', async (name) => {
    const tampered = join(parent, `tampered-${name}`);
    cpSync(backupDir, tampered, { recursive: true });
    const file = join(tampered, name);
    const bytes = readFileSync(file);
    bytes[bytes.length - 100] ^= 0xff;
    writeFileSync(file, bytes);
    const target = join(parent, `from-tampered-${name}`);
    const refused = await runCli(['restore', '--from', tampered], restoreEnv(target));
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(new RegExp(`^vault: ${name.replace('.', '\\.')} does not match its SHA-256 in manifest\\.json`, 'm'));
    expect(existsSync(target)).toBe(false);
  });

  it('refuses to restore without the master key the backup was taken with, or with another one', async () => {
    const target = join(parent, 'no-key');
    const without = await runCli(['restore', '--from', backupDir], { VAULT_DATA_DIR: target, VAULT_MASTER_KEY: '' });
    expect(without.code).toBe(1);
    expect(without.stderr).toMatch(/^vault: this backup was taken with VAULT_MASTER_KEY set/m);
    const other = await runCli(['restore', '--from', backupDir], { VAULT_DATA_DIR: target, VAULT_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^vault: VAULT_MASTER_KEY is not the master key this backup was taken with/m);
    expect(other.stderr).not.toContain(MASTER);
    expect(existsSync(target)).toBe(false);
  });
});
