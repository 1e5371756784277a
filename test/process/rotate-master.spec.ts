// Master-key rotation with the built CLI beside the built API: the API given both keys keeps reading every tenant's
// tokens during the rotation and creating new ones; afterwards an API with the new key alone reads everything, and the
// old key alone opens nothing.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiProcess, runCli, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'rotation-test-bootstrap-key-0123456789abc';
const OLD = randomBytes(32).toString('base64');
const NEW = randomBytes(32).toString('base64');

describe('vault keys rotate-master', () => {
  let dataDir: string;
  let api: ApiProcess | null = null;
  const env = (keys: Record<string, string>) => ({ VAULT_DATA_DIR: dataDir, VAULT_BOOTSTRAP_KEY: BOOTSTRAP, VAULT_RATE_LIMIT_PER_SECOND: '100000', ...keys });
  const call = (path: string, key: string, init: RequestInit = {}) =>
    fetch(api!.url + path, { ...init, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-rotate-'));
  });
  afterAll(async () => {
    await api?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('re-wraps every tenant key while the API runs; afterwards the old master key opens nothing', async () => {
    api = await startApiProcess(env({ VAULT_MASTER_KEY: OLD }));
    const tenants = [];
    for (const name of ['one', 'two', 'three']) tenants.push(JSON.parse((await runCli(['tenant', 'create', '--name', name], env({ VAULT_MASTER_KEY: OLD }))).stdout));
    const tokens: Array<{ key: string; id: string; data: string }> = [];
    const writer = async (managementKey: string) => {
      const created = await call('/applications', managementKey, {
        method: 'POST',
        body: JSON.stringify({ name: 'w', type: 'private', permissions: ['token:create', 'token:read'], rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ['token:create', 'token:read'] }] }),
      });
      return ((await created.json()) as { key: string }).key;
    };
    const keys: string[] = [];
    for (const tenant of tenants) {
      let key = '';
      for (let i = 0; i < 50 && !key; i++) key = await writer(tenant.management_key).catch(() => '');
      keys.push(key);
    }
    const create = async (key: string) => {
      const data = `secret-${randomBytes(6).toString('hex')}`;
      const answer = await call('/tokens', key, { method: 'POST', body: JSON.stringify({ type: 'token', data }) });
      expect(answer.status).toBe(201);
      tokens.push({ key, id: ((await answer.json()) as { id: string }).id, data });
    };
    for (const key of keys) for (let i = 0; i < 3; i++) await create(key);

    // Restarted with both keys; the rotation runs beside it while tokens are read and written.
    await api.stop('SIGTERM');
    api = await startApiProcess(env({ VAULT_MASTER_KEY: NEW, VAULT_MASTER_KEY_PREVIOUS: OLD }));
    const rotation = runCli(['keys', 'rotate-master'], env({ VAULT_MASTER_KEY: NEW, VAULT_MASTER_KEY_PREVIOUS: OLD }));
    for (const key of keys) await create(key);
    const result = await rotation;
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout.trim());
    expect(summary.rewrapped + summary.already).toBe(summary.total);
    expect(summary.total).toBeGreaterThanOrEqual(3);
    expect(result.stderr).toMatch(/tenant keys/);
    for (const token of tokens) expect(((await (await call(`/tokens/${token.id}`, token.key)).json()) as { data: string }).data).toBe(token.data);

    // Run again: nothing left to re-wrap.
    const again = JSON.parse((await runCli(['keys', 'rotate-master'], env({ VAULT_MASTER_KEY: NEW, VAULT_MASTER_KEY_PREVIOUS: OLD }))).stdout.trim());
    expect(again.rewrapped).toBe(0);

    // The new key alone reads everything.
    await api.stop('SIGTERM');
    api = await startApiProcess(env({ VAULT_MASTER_KEY: NEW }));
    for (const token of tokens) expect(((await (await call(`/tokens/${token.id}`, token.key)).json()) as { data: string }).data).toBe(token.data);

    // The old key alone opens nothing: no token reads back.
    await api.stop('SIGTERM');
    api = await startApiProcess(env({ VAULT_MASTER_KEY: OLD }));
    for (const token of tokens) {
      const answer = await call(`/tokens/${token.id}`, token.key);
      expect(JSON.stringify(await answer.json().catch(() => null))).not.toContain(token.data);
    }
  }, 120_000);

  it('refuses to run without both keys, naming the one missing', async () => {
    const missing = await runCli(['keys', 'rotate-master'], env({ VAULT_MASTER_KEY: NEW }));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('VAULT_MASTER_KEY_PREVIOUS');
  });
});
