// What the SQLite key store does beyond the KeyStore contract (test/contract/key-store.sqlite.spec.ts): batch reads
// by primary key, keys kept across restarts, and no byte of a destroyed key left on disk.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { KEY_STORE_FILE, SqliteKeyStore } from './sqlite-key-store';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-keys-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** Every byte of the key store's files, where a key would linger: the database and its write-ahead log. */
const bytesOnDisk = (dir: string): Buffer =>
  Buffer.concat(
    [KEY_STORE_FILE, `${KEY_STORE_FILE}-wal`]
      .map((name) => join(dir, name))
      .filter((file) => existsSync(file))
      .map((file) => readFileSync(file)),
  );

describe('SqliteKeyStore.getMany', () => {
  it("gives the tenant's stored keys among those asked, by token id, and nothing else", async () => {
    const store = SqliteKeyStore.open(freshDir());
    try {
      const keys = new Map(['b', 'a', 'c'].map((id) => [id, randomBytes(61)]));
      for (const [id, key] of keys) await store.put('tenant', id, key);
      await store.put('other', 'd', randomBytes(61));
      await store.destroy('tenant', 'c');
      const found = await store.getMany('tenant', ['c', 'a', 'd', 'missing', 'b', 'a']);
      expect([...found.keys()].sort()).toEqual(['a', 'b']);
      for (const id of ['a', 'b']) expect(Buffer.from(found.get(id)!)).toEqual(keys.get(id));
      expect((await store.getMany('tenant', [])).size).toBe(0);
    } finally {
      store.close();
    }
  });

  it('looks each id up by the primary key rather than scanning the tenant\'s keys (a rebuild asks 5,000 at a time)', () => {
    const dir = freshDir();
    SqliteKeyStore.open(dir).close();
    const db = new Database(join(dir, KEY_STORE_FILE), { readonly: true });
    try {
      const source = readFileSync(require.resolve('./sqlite-key-store'), 'utf8');
      const sql = /'(SELECT d\.token_id[^']*)'/.exec(source)![1];
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('[]', 'tenant') as Array<{ detail: string }>).map((row) => row.detail);
      expect(plan).toEqual([expect.stringMatching(/^SCAN j/), 'SEARCH d USING PRIMARY KEY (tenant_id=? AND token_id=?)']);
    } finally {
      db.close();
    }
  });
});

describe('SqliteKeyStore on disk', () => {
  it('keeps keys across a restart', async () => {
    const dir = freshDir();
    const key = randomBytes(61);
    const first = SqliteKeyStore.open(dir);
    await first.put('tenant', 'token', key);
    first.close();
    const second = SqliteKeyStore.open(dir);
    expect(Buffer.from((await second.get('tenant', 'token'))!)).toEqual(key);
    second.close();
  });

  it('leaves no byte of a destroyed key in the database file or its WAL', async () => {
    const dir = freshDir();
    const store = SqliteKeyStore.open(dir);
    const keys = Array.from({ length: 50 }, () => randomBytes(61));
    for (const [i, key] of keys.entries()) await store.put('tenant', `token-${i}`, key);
    const doomed = keys[17];
    expect(bytesOnDisk(dir).includes(doomed)).toBe(true);

    await store.destroy('tenant', 'token-17');

    const disk = bytesOnDisk(dir);
    expect(disk.includes(doomed)).toBe(false);
    // Only the doomed key's bytes were wiped; its neighbours are intact.
    expect(disk.includes(keys[16])).toBe(true);
    expect(Buffer.from((await store.get('tenant', 'token-18'))!)).toEqual(keys[18]);
    store.close();
  });
});
