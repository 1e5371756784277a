// Processes that start at the same moment on a fresh data dir (two `npm start`s, an API and the CLI) each look for
// master.key, find none and generate one. They must end up with one key: the file appears whole or not at all, and
// the processes that lost the race read the winner's key instead of failing on a half-written file or keeping their own.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MODULE = join(__dirname, '..', '..', 'dist', 'libs', 'adapters', 'src', 'crypto', 'master-key.js');
const PROCESSES = 6;
const ROUNDS = 8;

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A node process that waits for `startAt` (so all of them reach the file at once), then loads the key. */
const loadIn = (dataDir: string, startAt: number) =>
  new Promise<Outcome>((resolve) => {
    const script = `
      const { loadMasterKey } = require(${JSON.stringify(MODULE)});
      while (Date.now() < ${startAt});
      const loaded = loadMasterKey({ configured: undefined, dataDir: ${JSON.stringify(dataDir)}, allowGenerated: true });
      process.stdout.write(JSON.stringify({ key: loaded.key.toString('base64'), generated: loaded.generated }));`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });

describe('the generated master key, created by processes starting at the same moment', () => {
  let parent: string;
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-master-race-'));
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('is one key: every process loads it, exactly one generated it, and no draft file is left', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const dataDir = join(parent, `data-${round}`);
      // Far enough ahead for every process to have started and loaded the module.
      const startAt = Date.now() + 1000;
      const outcomes = await Promise.all(Array.from({ length: PROCESSES }, () => loadIn(dataDir, startAt)));
      expect(outcomes.map(({ code, stderr }) => ({ code, stderr }))).toEqual(outcomes.map(() => ({ code: 0, stderr: '' })));
      const loaded = outcomes.map(({ stdout }) => JSON.parse(stdout) as { key: string; generated: boolean });
      const onFile = readFileSync(join(dataDir, 'master.key'), 'utf8').trim();
      expect(loaded.map(({ key }) => key)).toEqual(loaded.map(() => onFile));
      expect(loaded.filter(({ generated }) => generated)).toHaveLength(1);
      expect(readdirSync(dataDir)).toEqual(['master.key']);
    }
  }, 60_000);
});
