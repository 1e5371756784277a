import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { CountWorker } from './count-worker';

describe('CountWorker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vault-count-'));
  const file = join(dir, 'db.sqlite');
  const worker = new CountWorker();

  beforeAll(() => {
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x INTEGER)');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    db.transaction(() => {
      for (let i = 0; i < 1000; i++) insert.run(i);
    })();
    db.close();
  });
  afterAll(async () => {
    await worker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts with bound parameters on another thread', async () => {
    expect(isMainThread).toBe(true);
    expect(await worker.count(file, 'SELECT COUNT(*) AS n FROM t WHERE x >= ?', [900])).toBe(100);
    expect(await Promise.all([0, 500, 999].map((from) => worker.count(file, 'SELECT COUNT(*) AS n FROM t WHERE x >= ?', [from])))).toEqual([1000, 500, 1]);
  });

  it('rejects a count that fails, and keeps working after it', async () => {
    await expect(worker.count(file, 'SELECT COUNT(*) AS n FROM missing', [])).rejects.toThrow(/search statement failed: no such table/);
    expect(await worker.count(file, 'SELECT COUNT(*) AS n FROM t', [])).toBe(1000);
  });

  it('reads rows on another thread, in the order the statement gives', async () => {
    expect(await worker.rows(file, 'SELECT x FROM t WHERE x >= ? ORDER BY x DESC LIMIT 3', [990])).toEqual([{ x: 999 }, { x: 998 }, { x: 997 }]);
  });
});
