import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileLock } from './file-lock';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vault-file-lock-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileLock', () => {
  it('is held from acquire to release; this process asking again is refused at once, and it is still held', () => {
    const file = join(dir, 'LOCK');
    expect(FileLock.isHeld(file)).toBe(false);
    const lock = FileLock.acquire(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(FileLock.isHeld(file)).toBe(true);
    expect(() => FileLock.acquire(file, 50)).toThrow('already locked by this process');
    expect(FileLock.isHeld(file)).toBe(true);
    lock.release();
    expect(FileLock.isHeld(file)).toBe(false);
    FileLock.acquire(file, 50).release();
  });

  it('makes another process wait, then fail; and is free again when the process holding it is killed', async () => {
    const file = join(dir, 'LOCK');
    FileLock.acquire(file).release();
    // Another process takes the same lock the same way, says so, and waits to be killed.
    const script = `
      const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
      const db = new Database(${JSON.stringify(file)});
      db.pragma('journal_mode = DELETE');
      db.exec('BEGIN EXCLUSIVE');
      process.stdout.write('held');
      setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    expect(FileLock.isHeld(file)).toBe(true);
    expect(() => FileLock.acquire(file, 50)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(FileLock.isHeld(file)).toBe(false);
  });
});
