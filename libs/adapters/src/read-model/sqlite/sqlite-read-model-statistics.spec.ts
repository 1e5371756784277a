// When the read model refreshes SQLite's planner statistics. An ANALYZE reads every index page of the file (STAT4 counts
// every entry exactly), 24 s at a million tokens on a cold page cache: a restart must not run one on a file that has
// statistics, a growing file gets a new one only when it has doubled since the last, and none past 64 MiB.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteReadModel } from './sqlite-read-model';
import { tokensTable } from './tokens/tokens-table';

/** The marker an ANALYZE replaces: a statistics row no real index has. */
const MARKER = '424242 1';

describe('SQLite read model planner statistics', () => {
  let dataDir: string;
  let position = 0n;
  const tenant = randomUUID();

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-stats-'));
    position = 0n;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const file = () => join(dataDir, 'readmodel', readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim());
  /** Another connection to the file, as a person inspecting it would open one. */
  const inspect = <T>(read: (db: Database.Database) => T): T => {
    const db = new Database(file());
    try {
      return read(db);
    } finally {
      db.close();
    }
  };
  const analyzedPages = () =>
    inspect((db) => (db.prepare('SELECT analyzed_pages FROM planner_statistics WHERE id = 1').get() as { analyzed_pages: number } | undefined)?.analyzed_pages ?? null);
  const usedPages = () => inspect((db) => (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number));
  const tokensStatistics = () => inspect((db) => db.prepare("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'tokens' ORDER BY idx").all() as Array<{ idx: string; stat: string }>);
  /** Overwrites every statistics row with MARKER: if an ANALYZE runs afterwards, the marker is gone. */
  const mark = () => inspect((db) => db.prepare('UPDATE sqlite_stat1 SET stat = ?').run(MARKER).changes);
  const marked = () => tokensStatistics().every((row) => row.stat === MARKER);
  /** As if the last ANALYZE had run at the file's current size. */
  const analyzedNow = () => inspect((db) => db.prepare('UPDATE planner_statistics SET analyzed_pages = ?').run(usedPages()));

  async function load(model: SqliteReadModel, count: number): Promise<void> {
    for (let done = 0; done < count; done += 500) {
      const docs = Array.from({ length: Math.min(500, count - done) }, () => {
        const id = randomUUID();
        return {
          collection: 'tokens',
          id,
          revision: 0n,
          doc: {
            id, tenant_id: tenant, type: 'token',
            encrypted: { v: 1, alg: 'AES-256-GCM', key_ref: id, iv: 'aQ==', ciphertext: 'Yw==', tag: 'dA==' },
            fingerprint: randomUUID(), fingerprint_expression: '{{ data }}', mask: null, masked: null,
            containers: ['/pii/high/'], metadata: { customer_id: randomUUID() },
            search_indexes: [], search_hashes: [randomUUID()], expires_at: null,
            created_by: 'app', created_at: new Date().toISOString(), modified_by: null, modified_at: null,
          },
        };
      });
      position++;
      await model.commit(docs, { commit: position, prepare: position });
    }
  }

  it('a growing read model gets statistics, and a restart keeps them without analyzing again', async () => {
    const first = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(first, 3000);
    await first.close();
    expect(tokensStatistics().length).toBeGreaterThan(0);
    expect(analyzedPages()).toBeGreaterThan(0);

    analyzedNow();
    expect(mark()).toBeGreaterThan(0);
    const second = SqliteReadModel.open(dataDir, [tokensTable]);
    // More than one check's worth of changes, far less than doubling the file.
    await load(second, 1500);
    await second.close();
    expect(usedPages()).toBeLessThan(2 * analyzedPages()!);
    expect(marked()).toBe(true);
  });

  it('keeps no samples of index keys (STAT4 would store fingerprints and search hashes beyond their tokens)', async () => {
    const model = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(model, 3000);
    await model.close();
    expect(tokensStatistics().length).toBeGreaterThan(0);
    const samples = inspect((db) =>
      db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_stat4'").get() ? (db.prepare('SELECT COUNT(*) AS n FROM sqlite_stat4').get() as { n: number }).n : 0,
    );
    expect(samples).toBe(0);
  });

  it('analyzes again once the used pages have doubled since the last run, and records the new size', async () => {
    const model = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(model, 2000);
    await model.close();
    analyzedNow();
    const before = analyzedPages()!;
    mark();

    const reopened = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(reopened, 6000);
    await reopened.close();
    expect(usedPages()).toBeGreaterThanOrEqual(2 * before);
    expect(marked()).toBe(false);
    expect(tokensStatistics().find((row) => row.idx === 'tokens_tenant_fingerprint')?.stat).toMatch(/^\d+ /);
    expect(analyzedPages()).toBeGreaterThanOrEqual(2 * before);
  });

  it('past 64 MiB a file keeps its statistics however much it grows (the next run would walk every index)', async () => {
    const model = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(model, 2000);
    await model.close();
    // 70 MiB of other content: the file is now past the bound, and over twice the size of its last analysis.
    inspect((db) => {
      db.exec('CREATE TABLE filler (b BLOB)');
      db.prepare('INSERT INTO filler VALUES (zeroblob(?))').run(70 * 1024 * 1024);
    });
    mark();

    const reopened = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(reopened, 1500);
    await reopened.close();
    expect(usedPages()).toBeGreaterThanOrEqual(2 * analyzedPages()!);
    expect(marked()).toBe(true);
  });

  it('a file with statistics but no record of their size (analyzed by an earlier version) is not analyzed at open', async () => {
    const model = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(model, 2000);
    await model.close();
    mark();
    inspect((db) => db.prepare('DELETE FROM planner_statistics').run());

    const reopened = SqliteReadModel.open(dataDir, [tokensTable]);
    await reopened.close();
    expect(marked()).toBe(true);
    expect(analyzedPages()).toBe(usedPages());
  });

  it('a file without statistics is analyzed at open', async () => {
    const model = SqliteReadModel.open(dataDir, [tokensTable]);
    await load(model, 2000);
    await model.close();
    inspect((db) => {
      db.prepare('DELETE FROM planner_statistics').run();
      db.prepare('DELETE FROM sqlite_stat1').run();
    });

    const reopened = SqliteReadModel.open(dataDir, [tokensTable]);
    await reopened.close();
    expect(tokensStatistics().length).toBeGreaterThan(0);
    expect(marked()).toBe(false);
    expect(analyzedPages()).toBe(usedPages());
  });
});
