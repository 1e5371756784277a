// The built apps as separate processes, on what they leave in VAULT_DATA_DIR and how they share it: the CLI on a fresh
// data dir leaves only owner-only files; an API with VAULT_PROJECTOR=external refuses a key deleted through another.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tooOpen } from '../support/data-dir';
import { ApiProcess, runCli, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'data-dir-process-bootstrap-key-0123456789abcdef';

describe('the built apps and the data dir', () => {
  let parent: string;
  let dataDir: string;
  const apis: ApiProcess[] = [];
  let previousUmask: number;

  // Children inherit the umask: a permissive one, as in most shells, so only the apps' own care can pass.
  beforeAll(() => {
    previousUmask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(previousUmask);
  });
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-dd-proc-'));
    dataDir = join(parent, 'data');
  });
  afterEach(async () => {
    for (const api of apis.splice(0)) await api.stop('SIGKILL');
    rmSync(parent, { recursive: true, force: true });
  });

  it('the CLI creates a fresh data dir with directories 0700 and files 0600, through a tenant create and a rebuild', async () => {
    const env = { VAULT_DATA_DIR: dataDir };
    const created = await runCli(['tenant', 'create', '--name', 'acme'], env);
    expect(created.code).toBe(0);
    expect((await runCli(['projections', 'rebuild'], env)).code).toBe(0);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['events.sqlite', 'keys.sqlite', 'master.key', 'readmodel']));
    expect(tooOpen(dataDir)).toEqual([]);
  });

  it('an API with VAULT_PROJECTOR=external refuses, within the write wait, a key deleted through the API that projects', async () => {
    const env = { VAULT_DATA_DIR: dataDir, VAULT_BOOTSTRAP_KEY: BOOTSTRAP, VAULT_RATE_LIMIT_PER_SECOND: '100000' };
    const projecting = await startApiProcess(env);
    apis.push(projecting);
    const reading = await startApiProcess({ ...env, VAULT_PROJECTOR: 'external' });
    apis.push(reading);
    const call = (api: ApiProcess, path: string, key: string, init: RequestInit = {}) =>
      fetch(api.url + path, { ...init, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json' } });

    const created = await call(projecting, '/applications', BOOTSTRAP, {
      method: 'POST',
      body: JSON.stringify({ name: 'short-lived', type: 'private', permissions: ['token:read'] }),
    });
    expect(created.status).toBe(201);
    const app = (await created.json()) as { id: string; key: string };
    for (let i = 0; i < 3; i++) expect((await call(reading, '/permissions', app.key)).status).toBe(200);

    expect((await call(projecting, `/applications/${app.id}`, BOOTSTRAP, { method: 'DELETE' })).status).toBe(204);
    // Within the write wait in principle; twice that, so a busy machine does not fail the test.
    const deadline = Date.now() + 2 * 2000;
    let status = 0;
    while (Date.now() < deadline && (status = (await call(reading, '/permissions', app.key)).status) !== 401) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(status).toBe(401);
    expect(tooOpen(dataDir)).toEqual([]);
  });
});
