// Every shell session of the README and docs/ runs as a user pastes it. The convention (docs/README.md, "Writing
// docs"):
// - Every ```sh block of README.md and of docs/ is a session a user pastes; ```text blocks are output and never run.
// - A ```sh block whose first line is `# not run by the docs test: <why>` is shown but not run: `npm start` and
//   `npm test` themselves, commands that need EventStoreDB, Meilisearch or Docker. Use it sparingly.
// - Blocks run in order, README.md first, then the docs pages in the order docs/README.md links them, each with
//   `bash -e -o pipefail` from the repository root. They run against one service started as the quick start starts
//   it (`node --no-node-snapshot dist/apps/api/src/main.js` with PORT, VAULT_BOOTSTRAP_KEY and a fresh VAULT_DATA_DIR),
//   and their environment is a user's shell plus exactly the variables the README tells the user to export.
// - Each block is self-contained: it captures ids with `jq -r`, never hard-codes or shortens them, and stops what it
//   starts (a `trap … EXIT`): a block that leaves a process running fails.
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { exportedVariables, extractSessions, fencedBlocks, linkedPages, OTHER_SHELL_LANGUAGES, Session } from './extract-sessions';

const root = join(__dirname, '..', '..');
const INDEX = 'docs/README.md';
const BLOCK_TIMEOUT_MS = 240_000;
const TAIL_LINES = 40;

const read = (file: string) => readFileSync(join(root, file), 'utf8');
const linked = linkedPages(INDEX, read(INDEX));
const order = ['README.md', INDEX, ...linked.filter((page) => existsSync(join(root, page)))];
const sessions: Session[] = order.flatMap((file) => extractSessions(file, read(file)));

/** What the README's sessions tell the user to export; the test gives the blocks these and nothing more. */
const exported = new Map(exportedVariables(read('README.md')));
const EXPECTED_EXPORTS = ['VAULT_URL', 'VAULT_BOOTSTRAP_KEY', 'VAULT_DATA_DIR'];

describe('the docs sessions, read', () => {
  it('README.md tells the user to export VAULT_URL, VAULT_BOOTSTRAP_KEY and VAULT_DATA_DIR, and nothing more', () => {
    expect([...exported.keys()].sort()).toEqual([...EXPECTED_EXPORTS].sort());
  });

  it("the exported VAULT_BOOTSTRAP_KEY is the quick start's", () => {
    expect(read('README.md')).toContain(`VAULT_BOOTSTRAP_KEY=${exported.get('VAULT_BOOTSTRAP_KEY')} npm start`);
  });

  it(`every page ${INDEX} links exists`, () => {
    expect(linked.filter((page) => !existsSync(join(root, page)))).toEqual([]);
  });

  it(`every page of docs/ with a session is linked from ${INDEX}`, () => {
    const unlinked = markdownFiles('docs')
      .filter((file) => file !== INDEX && !linked.includes(file))
      .filter((file) => extractSessions(file, read(file)).length > 0);
    expect(unlinked).toEqual([]);
  });

  it('no session hides under another fence name than sh', () => {
    const others = ['README.md', ...markdownFiles('docs')].flatMap((file) =>
      fencedBlocks(read(file))
        .filter((block) => OTHER_SHELL_LANGUAGES.includes(block.language))
        .map((block) => `${file}:${block.line} (${block.language})`),
    );
    expect(others).toEqual([]);
  });

  it('every block the test does not run says why', () => {
    expect(sessions.filter((session) => session.skip === '').map((session) => `${session.file}:${session.line}`)).toEqual([]);
  });
});

describe('the docs sessions, run against the quick-start service', () => {
  let dataDir: string;
  let service: ChildProcess | undefined;
  let serviceOutput = '';
  let blockEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-docs-'));
    const bootstrapKey = exported.get('VAULT_BOOTSTRAP_KEY');
    if (!bootstrapKey) throw new Error('README.md exports no VAULT_BOOTSTRAP_KEY');
    // PORT=0: a free port, printed on the listening line (the README's way to change the port).
    service = spawn(process.execPath, ['--no-node-snapshot', 'dist/apps/api/src/main.js'], {
      cwd: root,
      env: { ...usersShell(), PORT: '0', VAULT_BOOTSTRAP_KEY: bootstrapKey, VAULT_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    service.stdout!.on('data', (chunk) => (serviceOutput += chunk));
    service.stderr!.on('data', (chunk) => (serviceOutput += chunk));
    const port = await listeningPort(service, () => serviceOutput);
    const url = `http://localhost:${port}`;
    await waitForReady(url);
    blockEnv = { ...usersShell(), VAULT_URL: url, VAULT_BOOTSTRAP_KEY: bootstrapKey, VAULT_DATA_DIR: dataDir };
  }, 120_000);

  afterAll(async () => {
    if (service?.pid !== undefined) await stopGroup(service);
    rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('has sessions to run', () => {
    expect(sessions.filter((session) => session.skip === null).length).toBeGreaterThan(10);
  });

  for (const session of sessions) {
    const title = `${session.file}:${session.line} ${session.heading}`;
    // A block marked not run is shown to readers only; the extractor's spec checks that its marker gives a reason.
    if (session.skip !== null) continue;
    it(title, async () => {
      const result = await runBlock(session, blockEnv);
      if (result.status === 0 && !result.leftover && !result.timedOut) return;
      const why = result.timedOut
        ? `did not finish within ${BLOCK_TIMEOUT_MS / 1000} s`
        : result.status !== 0
          ? `exited with status ${result.status}`
          : 'left a process running (start background processes with a `trap … EXIT` that stops them)';
      const serviceState = service?.exitCode !== null ? `\n--- the service exited; its output ---\n${tail(serviceOutput)}` : '';
      throw new Error(
        `${session.file}:${session.line} (${session.heading}) ${why}\n` +
          `--- stderr, last ${TAIL_LINES} lines ---\n${tail(result.stderr)}\n` +
          `--- stdout, last ${TAIL_LINES} lines ---\n${tail(result.stdout)}${serviceState}`,
      );
    }, BLOCK_TIMEOUT_MS + 30_000);
  }
});

interface BlockResult {
  status: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  leftover: boolean;
}

/** Runs one block as `bash -e -o pipefail` from the repository root; a failing command names its line in the file. */
function runBlock(session: Session, env: NodeJS.ProcessEnv): Promise<BlockResult> {
  // One line ahead of the block, so the block's line n is bash's line n + 1.
  const offset = session.line - 2;
  const where = `docs test: failed at ${session.file}:$((LINENO + ${offset})): $BASH_COMMAND`;
  const script = `trap 'echo "${where}" >&2' ERR\n${session.code}\n`;
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const closed = new Promise((done) => child.once('close', done));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    signalGroup(child.pid!, 'SIGTERM');
    setTimeout(() => signalGroup(child.pid!, 'SIGKILL'), 5000).unref();
  }, BLOCK_TIMEOUT_MS);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', async (code, signal) => {
      clearTimeout(timer);
      // bash has exited; whatever is left of its process group was started by the block and never stopped.
      const leftover = !(await groupGone(child.pid!, 5000));
      if (leftover) signalGroup(child.pid!, 'SIGKILL');
      await closed;
      resolve({ status: code ?? (signal ? 128 : null), stdout, stderr, timedOut, leftover });
    });
  });
}

/** The environment of a user's shell: ours without the vault's variables and what npm and Jest add. */
function usersShell(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(VAULT_|MEILI_|ESDB_|npm_|JEST_)/.test(name) || ['PORT', 'NODE_OPTIONS', 'NODE_ENV', 'INIT_CWD'].includes(name)) continue;
    env[name] = value;
  }
  // npm test puts node_modules/.bin on the PATH; a user's shell doesn't have it.
  env.PATH = (process.env.PATH ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');
  return env;
}

function listeningPort(child: ChildProcess, output: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${tail(output())}`)), 90_000);
    const check = () => {
      const match = /^Vault API listening on http:\/\/localhost:(\d+) /m.exec(output());
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve(Number(match[1]));
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}:\n${tail(output())}`));
    });
  });
}

async function waitForReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if ((await statusOf(`${url}/health/ready`)) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url}/health/ready never answered 200`);
}

/** A GET's status, 0 when nothing answers; no keep-alive, so no socket outlives the test. */
function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = get(url, { agent: false }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
  });
}

async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    signalGroup(child.pid!, 'SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 30_000)))]);
    clearTimeout(timer);
  }
  if (!(await groupGone(child.pid!, 5000))) signalGroup(child.pid!, 'SIGKILL');
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

async function groupGone(pid: number, waitMs: number): Promise<boolean> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      process.kill(-pid, 0);
    } catch {
      return true;
    }
    if (Date.now() > until) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function markdownFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => relative(root, join(root, dir, name)))
    .sort();
}

function tail(text: string): string {
  return text.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
}
