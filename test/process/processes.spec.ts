// The built service as separate OS processes: the CLI beside a running API, SIGKILL in a burst of writes, SIGTERM, rebuild.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiProcess, runCli, startApiProcess } from '../support/processes';

const BOOTSTRAP = 'process-test-bootstrap-key-0123456789abcdef';

describe('the built service as processes', () => {
  let dataDir: string;
  let api: ApiProcess;
  const env = () => ({ VAULT_DATA_DIR: dataDir, VAULT_BOOTSTRAP_KEY: BOOTSTRAP, VAULT_RATE_LIMIT_PER_SECOND: '100000' });
  const call = (path: string, key: string, init: RequestInit = {}) =>
    fetch(api.url + path, { ...init, headers: { 'SVC-API-KEY': key, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  const json = async (path: string, key: string): Promise<any> => (await call(path, key)).json();
  const createApp = (name: string) =>
    call('/applications', BOOTSTRAP, { method: 'POST', body: JSON.stringify({ name, type: 'public', permissions: ['token:create'] }) });

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vault-proc-'));
    api = await startApiProcess(env());
  });
  afterEach(async () => {
    await api.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a tenant with the CLI while the API runs; its key works within a second', async () => {
    const result = await runCli(['tenant', 'create', '--name', 'acme'], env());
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]);
    expect(Object.keys(created)).toEqual(['tenant_id', 'management_key']);
    const deadline = Date.now() + 1000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await call('/applications', created.management_key)).status;
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe(200);
    const list = await json('/applications', created.management_key);
    expect(list.pagination.total_items).toBe(1);
    expect(list.data[0].tenant_id).toBe(created.tenant_id);
  });

  it('deletes a tenant created with the CLI with the CLI while the API runs: its keys answer 401 at once, its tokens open no more, others work', async () => {
    const created = JSON.parse((await runCli(['tenant', 'create', '--name', 'leaving'], env())).stdout);
    let status = 0;
    for (const deadline = Date.now() + 5000; Date.now() < deadline && status !== 200; await new Promise((r) => setTimeout(r, 50))) {
      status = (await call('/applications', created.management_key)).status;
    }
    expect(status).toBe(200);
    const app = await call('/applications', created.management_key, {
      method: 'POST',
      body: JSON.stringify({ name: 'writer', type: 'private', permissions: ['token:create', 'token:read'] }),
    });
    const appKey = ((await app.json()) as { key: string }).key;
    const token = await call('/tokens', appKey, { method: 'POST', body: JSON.stringify({ type: 'social_security_number', data: '123-45-6789' }) });
    expect(token.status).toBe(201);
    const tokenId = ((await token.json()) as { id: string }).id;
    expect((await call(`/tokens/${tokenId}`, appKey)).status).toBe(200);

    const result = await runCli(['tenant', 'delete', '--id', created.tenant_id], env());
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ tenant_id: created.tenant_id, deleted: true });
    // The API process sees the destroyed tenant key in the shared key store on the very next request.
    expect((await call(`/tokens/${tokenId}`, appKey)).status).toBe(401);
    expect((await call('/applications', created.management_key)).status).toBe(401);
    expect((await call('/applications', BOOTSTRAP)).status).toBe(200);

    const again = await runCli(['tenant', 'delete', '--id', created.tenant_id], env());
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/^vault: No tenant .* deleted already/m);
  });

  it('keeps every answered write through SIGKILL mid-burst, applied to the read model exactly once', async () => {
    const answered: string[] = [];
    let stop = false;
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          const r = await createApp(`burst-${n}-${i}`);
          if (r.status === 201) answered.push(((await r.json()) as { id: string }).id);
        } catch {
          return; // the process is gone
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, n) => worker(n));
    while (answered.length < 150) await new Promise((r) => setTimeout(r, 5));
    await api.stop('SIGKILL');
    stop = true;
    await Promise.all(workers);

    api = await startApiProcess(env());
    for (const id of answered) expect((await call(`/applications/${id}`, BOOTSTRAP)).status).toBe(200);
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const body = await json(`/applications?size=100&page=${page}`, BOOTSTRAP);
      ids.push(...body.data.map((a: { id: string }) => a.id));
      if (page >= body.pagination.total_pages) {
        expect(ids).toHaveLength(body.pagination.total_items);
        break;
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(answered));
  });

  it('survives a second process appending at the same time', async () => {
    const cli = Promise.all(Array.from({ length: 6 }, (_, i) => runCli(['tenant', 'create', '--name', `t${i}`], env())));
    const apiWrites = Promise.all(Array.from({ length: 60 }, (_, i) => createApp(`concurrent-${i}`)));
    const [cliResults, apiResults] = await Promise.all([cli, apiWrites]);
    expect(cliResults.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(apiResults.map((r) => r.status).every((s) => s === 201)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000));
    for (const result of cliResults) {
      const { management_key } = JSON.parse(result.stdout);
      expect((await call('/applications', management_key)).status).toBe(200);
    }
    const list = await json('/applications?size=100', BOOTSTRAP);
    expect(list.pagination.total_items).toBe(61);
  });

  it('rebuilds the read model with the CLI while the API runs, printing progress, and serves the same data after', async () => {
    for (let i = 0; i < 30; i++) expect((await createApp(`rebuild-${i}`)).status).toBe(201);
    const before = await json('/applications?size=100', BOOTSTRAP);
    const result = await runCli(['projections', 'rebuild'], env());
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/rebuild: \d+\/\d+ events \(100%\), \d+ events\/s, ETA 0s/);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ events: expect.any(Number) });
    await new Promise((r) => setTimeout(r, 1500));
    const after = await json('/applications?size=100', BOOTSTRAP);
    expect(after).toEqual(before);
    expect((await createApp('after-rebuild')).status).toBe(201);
    const later = await json('/applications?size=100', BOOTSTRAP);
    expect(later.pagination.total_items).toBe(before.pagination.total_items + 1);
  });

  it('imports the shipped official formulas with the CLI; re-importing updates nothing and duplicates nothing', async () => {
    const dir = join(__dirname, '..', '..', 'formulas', 'official');
    const first = await runCli(['formulas', 'import', dir], env());
    expect(first.code).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.failed).toEqual([]);
    expect(report.imported.map((i: { result: string }) => i.result)).toEqual(report.imported.map(() => 'created'));
    expect(first.stderr).toMatch(/mask-email\.json: created "Mask Email"/);
    const again = JSON.parse((await runCli(['formulas', 'import', dir], env())).stdout);
    expect(again.imported.map((i: { result: string }) => i.result)).toEqual(report.imported.map(() => 'unchanged'));

    const tenant = JSON.parse((await runCli(['tenant', 'create', '--name', 'formula-reader'], env())).stdout);
    await new Promise((r) => setTimeout(r, 1000));
    for (const key of [BOOTSTRAP, tenant.management_key]) {
      const list = await json('/reactor-formulas?size=100', key);
      expect(list.pagination.total_items).toBe(report.imported.length);
      expect(list.data.map((f: { type: string }) => f.type)).toEqual(report.imported.map(() => 'official'));
    }

    const bad = await runCli(['formulas', 'import', join(__dirname, 'processes.spec.ts')], env());
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/FAILED not valid JSON/);
  });

  it('shuts down cleanly on SIGTERM', async () => {
    expect(await api.stop('SIGTERM')).toBe(0);
  });
});
