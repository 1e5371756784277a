// Processes that start at the same moment on one data dir (two `npm start`s, an API and the CLI) each set up what is
// missing: the generated master.key, the first read model file, a fresh file when the current one has an older layout.
// They must end up sharing one of each. Each round here starts several node processes that wait for one instant, then
// do what a starting process does, through the built adapters.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

const DIST = join(__dirname, '..', '..', 'dist', 'libs', 'adapters', 'src');
const PROCESSES = 6;
const ROUNDS = 6;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `body` (JavaScript; `dataDir` is bound) in PROCESSES node processes at once; resolves with each one's outcome. */
const atOnce = (dataDir: string, body: string) => {
  // Far enough ahead for every process to have started and loaded the modules.
  const startAt = Date.now() + 1000;
  const run = () =>
    new Promise<Outcome>((resolve) => {
      const script = `
        const dataDir = ${JSON.stringify(dataDir)};
        const adapters = require(${JSON.stringify(join(DIST, 'index.js'))});
        while (Date.now() < ${startAt});
        ${body}`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  return Promise.all(Array.from({ length: PROCESSES }, run));
};

/** Every process exited 0 with nothing on stderr; their outputs, parsed. */
const succeeded = <T>(outcomes: Outcome[]): T[] => {
  expect(outcomes.map(({ code, stderr }) => ({ code, stderr }))).toEqual(outcomes.map(() => ({ code: 0, stderr: '' })));
  return outcomes.map(({ stdout }) => JSON.parse(stdout) as T);
};

describe('processes starting at the same moment on one data dir', () => {
  let parent: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-fresh-race-'));
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('share one generated master key: every process loads it, exactly one generated it, no draft file is left', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = join(parent, `data-${round}`);
      const loaded = succeeded<{ key: string; generated: boolean }>(
        await atOnce(
          dataDir,
          `const loaded = adapters.loadMasterKey({ configured: undefined, dataDir, allowGenerated: true });
           process.stdout.write(JSON.stringify({ key: loaded.key.toString('base64'), generated: loaded.generated }));`,
        ),
      );
      const onFile = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();
      expect(loaded.map(({ key }) => key)).toEqual(loaded.map(() => onFile));
      expect(loaded.filter(({ generated }) => generated)).toHaveLength(1);
      expect(readdirSync(dataDir)).toEqual(['master.key']);
    }
  }, 60_000);

  /** Each process opens the read model as the API does (then removes stale files) and reports the file it uses. */
  const openReadModels = (dataDir: string) =>
    atOnce(
      dataDir,
      `const model = adapters.SqliteReadModel.open(dataDir, [adapters.tenantsTable, adapters.applicationsTable]);
       model.removeStaleFiles();
       process.stdout.write(JSON.stringify({ path: model.path }));
       model.close();`,
    );

  /** One file for all: the one CURRENT names, still there, of the current layout, and no other read model file. */
  const expectOneFile = (dataDir: string, opened: Array<{ path: string }>) => {
    const dir = join(dataDir, 'readmodel');
    const current = readFileSync(join(dir, 'CURRENT'), 'utf8').trim();
    expect(opened.map(({ path }) => path)).toEqual(opened.map(() => join(dir, current)));
    expect(readdirSync(dir).filter((name) => name.startsWith('readmodel-') && !name.startsWith(current))).toEqual([]);
    const db = new Database(join(dir, current), { readonly: true, fileMustExist: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBeGreaterThan(0);
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'applications'").get()).toBeDefined();
    } finally {
      db.close();
    }
  };

  it('open one read model file on a fresh data dir: none takes the half-created file for an old layout', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = join(parent, `data-${round}`);
      expectOneFile(dataDir, succeeded(await openReadModels(dataDir)));
    }
  }, 60_000);

  it('replace a read model file of an older layout with one new file, not one each', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = join(parent, `data-${round}`);
      mkdirSync(join(dataDir, 'readmodel'), { recursive: true });
      const old = new Database(join(dataDir, 'readmodel', 'readmodel-0.sqlite'));
      old.exec('CREATE TABLE tokens (id TEXT PRIMARY KEY, doc TEXT NOT NULL); PRAGMA user_version = 1;');
      old.close();
      writeFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'readmodel-0.sqlite');
      const opened = succeeded<{ path: string }>(await openReadModels(dataDir));
      expectOneFile(dataDir, opened);
      expect(opened[0].path).not.toContain('readmodel-0.sqlite');
    }
  }, 60_000);
});
