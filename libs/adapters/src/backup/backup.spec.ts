// The snapshot and the restore on real SQLite stores, in-process: what the manifest may name, the key shredder's
// checkpoint brought back to the log's snapshot, and the master-key checks (test/process/backup.spec.ts runs the CLI
// against a running API).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteKeyStore } from '../crypto/sqlite-key-store';
import { SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { BackupError, MANIFEST_FILE, parseManifest } from './backup-manifest';
import { restoreBackup } from './restore-backup';
import { takeBackup } from './take-backup';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-backup-unit-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const MASTER = randomBytes(32);
const metadata = { timestamp: '2026-11-28T00:00:00.000Z', correlation_id: 'c', actor: { type: 'operator', id: 'cli' } } as never;

/** A data dir with `events` events and the key shredder's checkpoint at `checkpoint`. */
async function dataDirWith(events: number, checkpoint: number): Promise<string> {
  const dir = freshDir();
  const log = SqliteEventStore.open(dir);
  for (let i = 0; i < events; i++) await log.append(`test-${i}`, [{ type: 'TestHappened', data: { i }, metadata }], 'no_stream');
  await log.close();
  const keys = SqliteKeyStore.open(dir);
  keys.close();
  const db = new Database(join(dir, 'keys.sqlite'));
  db.prepare('INSERT INTO shred_checkpoint (one, position) VALUES (1, ?)').run(`${checkpoint}:${checkpoint}`);
  db.close();
  return dir;
}

const backUp = (dataDir: string, out: string) =>
  takeBackup({ dataDir, out, vaultVersion: '0.0.0-test', readModelLayout: 1, masterKey: { key: MASTER, source: 'environment' } });

const checkpointIn = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT position FROM shred_checkpoint').get() as { position: string } | undefined)?.position ?? null;
  } finally {
    db.close();
  }
};

describe('takeBackup', () => {
  it("brings a key-shredder checkpoint past the log's snapshot back to the snapshot's last event", async () => {
    const out = join(freshDir(), 'backup');
    const { manifest } = backUp(await dataDirWith(3, 7), out);
    expect(manifest).toMatchObject({ events: 3, event_position: '3:3' });
    expect(checkpointIn(join(out, 'keys.sqlite'))).toBe('3:3');
  });

  it('keeps a checkpoint behind the snapshot as it is', async () => {
    const out = join(freshDir(), 'backup');
    backUp(await dataDirWith(5, 2), out);
    expect(checkpointIn(join(out, 'keys.sqlite'))).toBe('2:2');
  });

  it('refuses a data dir without an event log, writing nothing', () => {
    const out = join(freshDir(), 'backup');
    expect(() => backUp(freshDir(), out)).toThrow(BackupError);
    expect(existsSync(out)).toBe(false);
  });
});

describe('restoreBackup', () => {
  it('restores the log and the keys with the same VAULT_MASTER_KEY, and refuses another one before writing', async () => {
    const out = join(freshDir(), 'backup');
    backUp(await dataDirWith(2, 1), out);
    const target = join(freshDir(), 'data');
    expect(() => restoreBackup({ from: out, dataDir: target, configuredMasterKey: randomBytes(32) })).toThrow(/not the master key/);
    expect(() => restoreBackup({ from: out, dataDir: target, configuredMasterKey: null })).toThrow(/taken with VAULT_MASTER_KEY set/);
    expect(existsSync(target)).toBe(false);
    expect(restoreBackup({ from: out, dataDir: target, configuredMasterKey: MASTER }).restored).toEqual(['events.sqlite', 'keys.sqlite']);
    expect(readdirSync(target).sort()).toEqual(['events.sqlite', 'keys.sqlite']);
  });
});

describe('a vault on a generated master key', () => {
  it('has master.key in its backup; a restore copies it, or leaves it out when VAULT_MASTER_KEY is the same key', async () => {
    const dataDir = await dataDirWith(1, 0);
    writeFileSync(join(dataDir, 'master.key'), `${MASTER.toString('base64')}\n`, { mode: 0o600 });
    const out = join(freshDir(), 'backup');
    const { manifest } = takeBackup({ dataDir, out, vaultVersion: '0.0.0-test', readModelLayout: 1, masterKey: { key: MASTER, source: 'file' } });
    expect(manifest.master_key).toBe('file');
    expect(readdirSync(out).sort()).toEqual(['events.sqlite', 'keys.sqlite', 'manifest.json', 'master.key']);

    const copied = join(freshDir(), 'data');
    expect(restoreBackup({ from: out, dataDir: copied, configuredMasterKey: null }).restored).toContain('master.key');
    expect(readFileSync(join(copied, 'master.key'), 'utf8').trim()).toBe(MASTER.toString('base64'));
    const leftOut = join(freshDir(), 'data');
    expect(restoreBackup({ from: out, dataDir: leftOut, configuredMasterKey: MASTER }).restored).toEqual(['events.sqlite', 'keys.sqlite']);
  });
});

describe('parseManifest', () => {
  const valid = {
    format: 1,
    master_key: 'environment',
    master_key_check: 'ab',
    files: { 'events.sqlite': { sha256: 'a'.repeat(64), bytes: 1 }, 'keys.sqlite': { sha256: 'b'.repeat(64), bytes: 1 } },
  };
  it.each<[string, unknown, RegExp]>([
    ['a file outside the backup', { ...valid, files: { ...valid.files, '../events.sqlite': { sha256: 'c'.repeat(64) } } }, /unexpected file: \.\.\/events\.sqlite/],
    ['no key store', { ...valid, files: { 'events.sqlite': valid.files['events.sqlite'] } }, /must list events\.sqlite and keys\.sqlite/],
    ['a master key file it does not list', { ...valid, master_key: 'file' }, /must list master\.key/],
    ['another format', { ...valid, format: 2 }, /not a backup of format 1/],
    ['a checksum that is not one', { ...valid, files: { ...valid.files, 'keys.sqlite': { sha256: 'nope' } } }, /no SHA-256 for keys\.sqlite/],
  ])('refuses a manifest with %s', (_, manifest, reason) => {
    expect(() => parseManifest(JSON.stringify(manifest))).toThrow(reason);
  });

  it('refuses a manifest that is not JSON, naming the file', () => {
    expect(() => parseManifest('{')).toThrow(`${MANIFEST_FILE} is not valid JSON`);
  });
});

describe('a restore refused half-way', () => {
  it('leaves the data dir as it was when a file does not match', async () => {
    const out = join(freshDir(), 'backup');
    backUp(await dataDirWith(2, 1), out);
    writeFileSync(join(out, 'events.sqlite'), Buffer.concat([readFileSync(join(out, 'events.sqlite')), Buffer.from('x')]));
    const target = join(freshDir(), 'data');
    expect(() => restoreBackup({ from: out, dataDir: target, configuredMasterKey: MASTER })).toThrow(/^events\.sqlite does not match its SHA-256/);
    expect(existsSync(target)).toBe(false);
  });
});
