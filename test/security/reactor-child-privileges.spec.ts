// An API running as root starts its reactor children (runs and formula code checks) as an unprivileged user: code that
// escaped isolated-vm there could read neither the data dir (a 0700 dir of 0600 files, as the vault creates them) nor
// the API's environment in /proc/<pid>/environ (VAULT_BOOTSTRAP_KEY, VAULT_MASTER_KEY).
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProcessReactorRuntime, loadMasterKey, MASTER_KEY_FILE, SqliteKeyStore } from '@vault/adapters';

/** The ids and privileges of a process or one of its threads, from /proc. */
const credentials = (path: string) => {
  const status = readFileSync(`${path}/status`, 'utf8');
  const field = (name: string) => new RegExp(`^${name}:[ \\t]*(.*)$`, 'm').exec(status)?.[1].trim() ?? '';
  const ids = (name: string) => field(name).split(/\s+/).map(Number);
  return { uid: ids('Uid'), gid: ids('Gid'), groups: field('Groups'), capPrm: field('CapPrm'), capEff: field('CapEff') };
};

/** The live reactor children of this process: its children running reactor-child. */
const reactorChildren = (): number[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const ppid = /^PPid:\s*(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
        return Number(ppid) === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('reactor-child');
      } catch {
        return false;
      }
    })
    .map(Number);

/** Reads each path as a process with `ids` would (none: as this one), and answers `read` or the error code per path. */
const PROBE = `
const fs = require('node:fs');
const attempt = (path) => {
  try {
    if (fs.statSync(path).isDirectory()) fs.readdirSync(path);
    else fs.readFileSync(path);
    return 'read';
  } catch (error) {
    return error.code;
  }
};
process.stdout.write(JSON.stringify(process.argv.slice(1).map(attempt)));
`;
const probe = (paths: string[], ids?: { uid: number; gid: number }): string[] => {
  const result = spawnSync(process.execPath, ['-e', PROBE, ...paths], { cwd: '/', encoding: 'utf8', env: {}, ...ids });
  if (result.status !== 0) throw new Error(`the probe failed: ${result.stderr || result.error}`);
  return JSON.parse(result.stdout);
};

// Only root can switch users: run as anyone else, the children are that user, as the API is, and nothing is dropped.
const whenRoot = process.getuid?.() === 0 ? describe : describe.skip;

whenRoot('reactor children of an API running as root (skipped unless the tests run as root: only root can switch users)', () => {
  let parent: string;
  let dataDir: string;
  let runtime: ChildProcessReactorRuntime | undefined;

  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-reactor-user-'));
    // Open to all, so that only the data dir's own modes stand between the children and its files.
    chmodSync(parent, 0o755);
    dataDir = join(parent, 'data');
    loadMasterKey({ configured: undefined, dataDir, allowGenerated: true });
    SqliteKeyStore.open(dataDir).close();
  });
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
  });
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it.each<[string, (runtime: ChildProcessReactorRuntime) => Promise<unknown>]>([
    ['a reactor run', (r) => r.run('module.exports = async () => ({ raw: { ok: true } });', { args: {}, configuration: {} })],
    ['a formula code check', (r) => r.check('module.exports = async () => ({ raw: {} });')],
  ])('%s: its child has no root id, group or capability, and its ids read neither the data dir nor the API environment', async (_title, use) => {
    // Never recycled after its run (a child from the sources holds ~95 MB): the child looked at is the one that ran.
    runtime = new ChildProcessReactorRuntime({ timeoutMs: 2000, memoryLimitMb: 32, concurrency: 1, recycleRssMb: 1024 });
    expect(await use(runtime)).toMatchObject({ ok: true });
    const children = reactorChildren();
    expect(children).toHaveLength(1);
    const [child] = children;

    const { uid, gid } = credentials(`/proc/${child}`);
    expect(uid[0]).not.toBe(0);
    expect(gid[0]).not.toBe(0);
    // Every thread (V8's and libuv's were started before the switch): real, effective, saved and file-system ids alike.
    const threads = readdirSync(`/proc/${child}/task`).map((tid) => credentials(`/proc/${child}/task/${tid}`));
    expect(threads.length).toBeGreaterThan(1);
    for (const thread of threads) {
      expect(thread).toEqual({ uid: [uid[0], uid[0], uid[0], uid[0]], gid: [gid[0], gid[0], gid[0], gid[0]], groups: '', capPrm: '0000000000000000', capEff: '0000000000000000' });
    }

    const secrets = [dataDir, join(dataDir, MASTER_KEY_FILE), join(dataDir, 'keys.sqlite'), `/proc/${process.pid}/environ`];
    // As the API's own user, the probe reads them all: what it is refused below is the child's ids' doing.
    expect(probe(secrets)).toEqual(['read', 'read', 'read', 'read']);
    for (const outcome of probe(secrets, { uid: uid[0], gid: gid[0] })) expect(['EACCES', 'EPERM']).toContain(outcome);
  });
});
