// A read model written with an older table layout is never written to: start-up begins a fresh file, which the
// projector fills from the event log (its checkpoint is empty), and the old file is deleted.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { READ_MODEL_SCHEMA_VERSION, SqliteReadModel } from './sqlite-read-model';
import { applicationsTable, tenantsTable } from './sqlite-directory';
import { formulasTable } from './sqlite-formulas';
import { proxiesTable } from './sqlite-proxies';
import { reactorsTable } from './sqlite-reactors';
import { tokensTable } from './tokens/tokens-table';

const collections = [tenantsTable, applicationsTable, formulasTable, tokensTable, reactorsTable, proxiesTable];

describe('read model table layout', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'vault-layout-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const writeOldFile = (name: string) => {
    mkdirSync(join(dataDir, 'readmodel'), { recursive: true });
    const db = new Database(join(dataDir, 'readmodel', name));
    db.exec(`CREATE TABLE tokens (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, tenant_id TEXT NOT NULL, doc TEXT NOT NULL);
             CREATE TABLE checkpoint (id INTEGER PRIMARY KEY, position TEXT NOT NULL);
             INSERT INTO checkpoint VALUES (1, '42:42');`);
    db.close();
    writeFileSync(join(dataDir, 'readmodel', 'CURRENT'), name);
  };

  it('starts a fresh file with an empty checkpoint instead of writing into an older layout', async () => {
    writeOldFile('readmodel-0.sqlite');
    const model = SqliteReadModel.open(dataDir, collections);
    try {
      expect(await model.checkpoint()).toBeNull();
      const current = readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim();
      expect(current).not.toBe('readmodel-0.sqlite');
      expect(existsSync(join(dataDir, 'readmodel', 'readmodel-0.sqlite'))).toBe(false);
      expect(model.database.pragma('user_version', { simple: true })).toBe(READ_MODEL_SCHEMA_VERSION);
    } finally {
      await model.close();
    }
  });

  // Layout 7 added the proxies table: a file of layout 6 has its checkpoint past proxy events it never applied.
  it('replays into a fresh file, proxies table and all, from a file of the layout before proxies', async () => {
    const old = 'readmodel-6.sqlite';
    mkdirSync(join(dataDir, 'readmodel'), { recursive: true });
    const db = new Database(join(dataDir, 'readmodel', old));
    db.exec(`CREATE TABLE reactors (id TEXT PRIMARY KEY, revision INTEGER NOT NULL, doc TEXT NOT NULL);
             CREATE TABLE checkpoint (id INTEGER PRIMARY KEY, position TEXT NOT NULL);
             INSERT INTO checkpoint VALUES (1, '42:42');
             PRAGMA user_version = 6;`);
    db.close();
    writeFileSync(join(dataDir, 'readmodel', 'CURRENT'), old);
    const model = SqliteReadModel.open(dataDir, collections);
    try {
      expect(READ_MODEL_SCHEMA_VERSION).toBeGreaterThan(6);
      expect(await model.checkpoint()).toBeNull();
      expect(existsSync(join(dataDir, 'readmodel', old))).toBe(false);
      expect(model.database.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'proxies' ORDER BY name").pluck().all()).toEqual([
        'proxies_key_hash',
        'proxies_tenant_name',
        'sqlite_autoindex_proxies_1',
      ]);
    } finally {
      await model.close();
    }
  });

  it('keeps a file of the current layout, checkpoint and all', async () => {
    const first = SqliteReadModel.open(dataDir, collections);
    await first.commit([], { commit: 7n, prepare: 7n });
    await first.close();
    const again = SqliteReadModel.open(dataDir, collections);
    try {
      expect(await again.checkpoint()).toEqual({ commit: 7n, prepare: 7n });
    } finally {
      await again.close();
    }
  });
});
