// The built vault CLI as a process, on its own (the runs beside an API are in processes.spec.ts): help for every
// command, usage errors and failures with their exit codes, one JSON line on stdout, and the package's bin.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliResult, runCli, startApiProcess } from '../support/processes';

/** Until the API's projector has applied every event of the log (GET /health: no lag). */
async function waitForCaughtUp(url: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = (await (await fetch(`${url}/health`)).json()) as { projection?: { caught_up?: boolean; lag_events?: number } };
    if (health.projection?.caught_up && health.projection.lag_events === 0) return;
    if (Date.now() > deadline) throw new Error(`${url} did not catch up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const root = join(__dirname, '..', '..');

/** Runs `command` as a user's shell would (no --no-node-snapshot of ours), from the repository. */
function run(command: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('the vault CLI', () => {
  let parent: string;
  let dataDir: string;
  const env = () => ({ VAULT_DATA_DIR: dataDir });

  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-cli-'));
    dataDir = join(parent, 'data');
  });
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  describe('help, on stdout with exit 0, opening no store', () => {
    const top = [
      'Usage: vault [options] [command]',
      /tenant create --name <name>/,
      /tenant list/,
      /backup --out <dir>/,
      /restore --from <dir>/,
      /projections rebuild/,
      /formulas import <file-or-dir>/,
      /-V, --version/,
    ] as const;
    const tenant = ['Usage: vault tenant [options] [command]', /create --name <name>/, /list/, /delete --id <uuid>/] as const;
    it.each<[string, readonly [string, ...RegExp[]]]>([
      ['--help', top],
      ['-h', top],
      ['help', top],
      ['tenant --help', tenant],
      ['help tenant', tenant],
      ['tenant create --help', ['Usage: vault tenant create --name <name>', /"management_key"/, /shown only here/, /jq -r \.management_key/]],
      ['tenant create --name acme --help', ['Usage: vault tenant create --name <name>', /shown only here/]],
      ['tenant delete --help', ['Usage: vault tenant delete --id <uuid>', /shredded at once/, /401 from then on/, /Exits 1 when no such tenant/]],
      ['tenant list --help', ['Usage: vault tenant list [options]', /"created_at"/, /no key is ever printed/]],
      ['backup --help', ['Usage: vault backup --out <dir>', /VACUUM INTO/, /keys\.sqlite/, /manifest\.json/, /SHA-256/, /not empty/]],
      ['restore --help', ['Usage: vault restore --from <dir>', /empty or missing/, /SHA-256/, /VAULT_MASTER_KEY/, /rebuilds the read models/]],
      ['projections --help', ['Usage: vault projections [options] [command]', /rebuild\s+Replay the event log/]],
      ['projections rebuild --help', ['Usage: vault projections rebuild [options]', /ETA\) is printed on stderr/, /"events_per_second"/]],
      ['formulas --help', ['Usage: vault formulas [options] [command]', /import <file-or-dir>/]],
      ['formulas import --help', ['Usage: vault formulas import <file-or-dir>', /Exits 1 if any file failed/, /stderr/]],
    ])('vault %s', async (args, [usage, ...content]) => {
      const result = await runCli(args.split(' '), env());
      expect(result).toMatchObject({ code: 0, stderr: '' });
      expect(result.stdout.split('\n')[0]).toBe(usage);
      for (const pattern of content) expect(result.stdout).toMatch(pattern);
      expect(existsSync(dataDir)).toBe(false);
    });
  });

  describe('usage errors: the reason and the usage on stderr, nothing on stdout, exit 2, no data dir created', () => {
    it.each<[string[], RegExp]>([
      [[], /^Usage: vault \[options\] \[command\]/],
      [['tenant'], /^Usage: vault tenant \[options\] \[command\]/],
      [['explode'], /^error: unknown command 'explode'/],
      [['tenant', 'explode'], /^error: unknown command 'explode'/],
      [['help', 'explode'], /^Usage: vault \[options\] \[command\]/],
      [['tenant', 'create'], /^error: required option '--name <name>' not specified/],
      [['tenant', 'create', '--name'], /^error: option '--name <name>' argument missing/],
      [['tenant', 'create', '--name', '  '], /^error: tenant create needs a non-blank --name <name>/],
      [['tenant', 'create', '--name', 'n'.repeat(201)], /^error: tenant create needs a --name <name> of 1 to 200 characters/],
      [['tenant', 'create', '--name', 'acme', 'extra'], /^error: too many arguments for 'create'/],
      [['tenant', 'delete'], /^error: required option '--id <uuid>' not specified/],
      [['tenant', 'delete', '--id', 'acme'], /^error: tenant delete needs --id <uuid>, a tenant id/],
      [['projections', 'rebuild', '--fast'], /^error: unknown option '--fast'/],
      [['formulas', 'import'], /^error: missing required argument 'file-or-dir'/],
      [['tenant', 'list', 'extra'], /^error: too many arguments for 'list'/],
      [['backup'], /^error: required option '--out <dir>' not specified/],
      [['restore'], /^error: required option '--from <dir>' not specified/],
      [['formulas', 'import', '/no/such/formulas'], /^error: No such file or directory: \/no\/such\/formulas/],
    ])('vault %j', async (args, reason) => {
      const result = await runCli(args, env());
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(reason);
      expect(result.stderr).toMatch(/^Usage: vault/m);
      expect(existsSync(dataDir)).toBe(false);
    });

    it('a bad configuration is a usage error too', async () => {
      const result = await runCli(['tenant', 'create', '--name', 'acme'], { ...env(), VAULT_LOG_LEVEL: 'loud' });
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(result.stderr).toMatch(/^error: VAULT_LOG_LEVEL must be debug, info, warn or error/);
    });
  });

  it('vault --version (and -V) prints the package version and nothing else', async () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      expect(await runCli([flag], env())).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
    expect(existsSync(dataDir)).toBe(false);
  });

  it('ends quietly (exit 0, no stack trace) when its reader goes away, as `vault --help | head -1` does', async () => {
    const child = spawn(process.execPath, ['--no-node-snapshot', join(root, 'dist/apps/cli/src/main.js'), '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // Read nothing: the first write's pipe is gone.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    expect(stderr).not.toContain('EPIPE');
  });

  it('tenant list prints one JSON line per live tenant (id, name, created_at; no key), renamed names included', async () => {
    expect(await runCli(['tenant', 'list'], env())).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(dataDir)).toBe(false);
    const acme = JSON.parse((await runCli(['tenant', 'create', '--name', 'acme'], env())).stdout);
    const beta = JSON.parse((await runCli(['tenant', 'create', '--name', 'beta'], env())).stdout);
    const gone = JSON.parse((await runCli(['tenant', 'create', '--name', 'gone'], env())).stdout);
    expect((await runCli(['tenant', 'delete', '--id', gone.tenant_id], env())).code).toBe(0);
    const listed = await runCli(['tenant', 'list'], env());
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { id: acme.tenant_id, name: 'acme', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
      { id: beta.tenant_id, name: 'beta', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    for (const key of [acme.management_key, beta.management_key]) expect(listed.stdout + listed.stderr).not.toContain(key);
  });

  it('prints each warning once per run and each progress line once', async () => {
    const first = await runCli(['tenant', 'create', '--name', 'acme'], env());
    expect(first.stderr.match(/VAULT_MASTER_KEY is not set/g)).toHaveLength(1);
    const rebuild = await runCli(['projections', 'rebuild'], env());
    expect(rebuild.code).toBe(0);
    expect(rebuild.stderr.match(/VAULT_MASTER_KEY is not set/g)).toHaveLength(1);
    const lines = rebuild.stderr.trim().split('\n');
    expect(lines.filter((line) => line.startsWith('rebuild:'))).toEqual([...new Set(lines.filter((line) => line.startsWith('rebuild:')))]);
    expect(lines.filter((line, i) => line === lines[i - 1])).toEqual([]);
  });

  it('the API prints the "create a tenant" hint only while the vault has no tenant', async () => {
    const hint = /create one with: npm run -s vault -- tenant create/;
    const empty = await startApiProcess(env());
    expect(empty.output()).toMatch(hint);
    // The tool's tenant reaches the read model through the running API's projector; the next start has a tenant.
    expect((await runCli(['tenant', 'create', '--name', 'acme'], env())).code).toBe(0);
    await waitForCaughtUp(empty.url);
    await empty.stop();
    const withTenant = await startApiProcess(env());
    expect(withTenant.output()).not.toMatch(hint);
    await withTenant.stop();
  });

  it('a failure prints "vault: <reason>" on stderr and exits 1', async () => {
    writeFileSync(join(parent, 'not-a-dir'), '');
    const result = await runCli(['tenant', 'create', '--name', 'acme'], { VAULT_DATA_DIR: join(parent, 'not-a-dir', 'data') });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^vault: .*ENOTDIR/m);
  });

  it('tenant create prints one JSON line on stdout, and the key nowhere else', async () => {
    const result = await runCli(['tenant', 'create', '--name', 'acme'], env());
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('');
    const created = JSON.parse(lines[0]);
    expect(Object.keys(created)).toEqual(['tenant_id', 'management_key']);
    expect(created.management_key).toMatch(/^key_mgt_/);
    expect(result.stderr).not.toContain(created.management_key);
  });

  it('formulas import exits 1 when a file failed, still importing the others and printing one JSON summary', async () => {
    const dir = join(parent, 'formulas');
    mkdirSync(dir);
    copyFileSync(join(root, 'formulas', 'official', 'mask-email.json'), join(dir, 'a-mask-email.json'));
    writeFileSync(join(dir, 'b-broken.json'), '{');
    const result = await runCli(['formulas', 'import', dir], env());
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const report = JSON.parse(result.stdout);
    expect(report.imported).toEqual([expect.objectContaining({ file: 'a-mask-email.json', name: 'Mask Email', result: 'created' })]);
    expect(report.failed).toEqual([expect.objectContaining({ file: 'b-broken.json', error: expect.stringMatching(/^not valid JSON/) })]);
    expect(result.stderr).toMatch(/^a-mask-email\.json: created "Mask Email"/m);
    expect(result.stderr).toMatch(/^b-broken\.json: FAILED not valid JSON/m);
  });

  describe('the bin (bin/selfhosted-token-vault), as npx runs it', () => {
    it('npx selfhosted-token-vault --help prints the usage from the repository', async () => {
      // A fresh npx cache: npx keeps a project's bins in its cache by the project's path, and a cache written before
      // a rename would still hold the old bin.
      const result = await run('npx', ['--no-install', 'selfhosted-token-vault', '--help'], { ...env(), npm_config_cache: join(parent, 'npm-cache') });
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: vault \[options\] \[command\]\n/);
      expect(result.stdout).toMatch(/tenant create --name <name>/);
    });

    it('starts the CLI in a Node with --no-node-snapshot (for isolated-vm) and passes its output and exit code through', async () => {
      // Each Node process that starts prints its command-line flags on stderr.
      const preload = join(parent, 'print-exec-argv.js');
      writeFileSync(preload, "process.stderr.write('execArgv=' + JSON.stringify(process.execArgv) + '\\n');");
      const bin = join(root, 'bin', 'selfhosted-token-vault');
      const started = (stderr: string) => [...stderr.matchAll(/^execArgv=(.*)$/gm)].map((m) => JSON.parse(m[1]) as string[]);

      const created = await run(bin, ['tenant', 'create', '--name', 'acme'], { ...env(), NODE_OPTIONS: `--require ${preload}` });
      expect(created.code).toBe(0);
      expect(Object.keys(JSON.parse(created.stdout))).toEqual(['tenant_id', 'management_key']);
      expect(started(created.stderr)).toEqual([[], ['--no-node-snapshot']]);

      const unknown = await run(bin, ['tenant', 'explode'], { ...env(), NODE_OPTIONS: `--require ${preload}` });
      expect(unknown).toMatchObject({ code: 2, stdout: '' });
      expect(unknown.stderr).toMatch(/^error: unknown command 'explode'/m);

      // Already started with the flag: the CLI runs in the same process.
      const direct = await run(bin, ['tenant', 'create', '--name', 'beta'], { ...env(), NODE_OPTIONS: `--no-node-snapshot --require ${preload}` });
      expect(direct.code).toBe(0);
      expect(started(direct.stderr)).toEqual([[]]);
    });
  });
});
