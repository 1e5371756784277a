// Files under VAULT_DATA_DIR are readable by their owner only (directories 0700, files 0600), every file any
// embedded store creates included: the event log, the read model and its rebuilds, the key store, the master key, and
// the -wal/-shm files SQLite adds later. Runs under a permissive umask, as a library user's process would.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { rebuildReadModel } from '@vault/application';
import { EVENT_STORE, READ_MODELS, ReadModels, allProjections } from '@vault/nest';
import { tooOpen, walk } from '../support/data-dir';
import { createApplication, startTestApp, TestApp } from '../support/test-app';

const currentReadModel = (dataDir: string) => readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim();

describe('file permissions under VAULT_DATA_DIR', () => {
  const ALL = ['token:create', 'token:read', 'token:search', 'token:update', 'token:delete'];
  let parent: string;
  let dataDir: string;
  let previousUmask: number;
  let test: TestApp | null = null;

  const exercise = async (app: TestApp) => {
    const key = (
      await createApplication(app, {
        name: `owner-${Date.now()}`,
        type: 'private',
        permissions: ALL,
        rules: [{ priority: 1, container: '/', transform: 'reveal', permissions: ALL }],
      })
    ).key;
    const post = (data: string) => app.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'social_security_number', data });
    const kept = await post('123-45-6789');
    const doomed = await post('987-65-4321');
    expect([kept.status, doomed.status]).toEqual([201, 201]);
    expect((await app.http().delete(`/tokens/${doomed.body.id}`).set('SVC-API-KEY', key)).status).toBe(204);
    return key;
  };

  beforeAll(() => {
    // The default of most shells: without the adapters' own care, new files would be 0644 and directories 0755.
    previousUmask = process.umask(0o022);
  });
  afterAll(() => {
    process.umask(previousUmask);
  });
  beforeEach(() => {
    parent = mkdtempSync(join(tmpdir(), 'vault-modes-'));
    // A data dir that does not exist yet: the vault creates it (mkdtemp's own directory is 0700 already).
    dataDir = join(parent, 'data');
  });
  afterEach(async () => {
    await test?.close();
    test = null;
    rmSync(parent, { recursive: true, force: true });
  });

  it('creates every directory 0700 and every file 0600: writes, a delete, a rebuild and the swap to it', async () => {
    test = await startTestApp({}, dataDir);
    const key = await exercise(test);

    const before = currentReadModel(dataDir);
    await rebuildReadModel(test.app.get(EVENT_STORE), test.app.get<ReadModels>(READ_MODELS).rebuildable, allProjections(), () => undefined);
    const rebuilt = currentReadModel(dataDir);
    expect(rebuilt).not.toBe(before);
    // The running API follows the pointer within a second and removes the old file.
    const deadline = Date.now() + 5000;
    while (existsSync(join(dataDir, 'readmodel', before)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(join(dataDir, 'readmodel', before))).toBe(false);
    // A write after the swap makes the rebuilt file grow its own -wal and -shm.
    expect((await test.http().post('/tokens').set('SVC-API-KEY', key).send({ type: 'token', data: 'after the swap' })).status).toBe(201);

    const names = walk(dataDir).map((e) => relative(dataDir, e.path));
    expect(names).toEqual(
      expect.arrayContaining([
        'events.sqlite',
        'events.sqlite-wal',
        'events.sqlite-shm',
        'keys.sqlite',
        'keys.sqlite-wal',
        'master.key',
        'readmodel',
        'readmodel/CURRENT',
        `readmodel/${rebuilt}`,
        `readmodel/${rebuilt}-wal`,
        `readmodel/${rebuilt}-shm`,
      ]),
    );
    expect(tooOpen(dataDir)).toEqual([]);
  });

  it('narrows the directories and files of a data dir an older version left world-readable', async () => {
    test = await startTestApp({}, dataDir);
    await exercise(test);
    await test.close({ keepData: true });
    test = null;
    for (const entry of walk(dataDir)) chmodSync(entry.path, entry.dir ? 0o755 : 0o644);
    expect(tooOpen(dataDir).length).toBeGreaterThan(3);

    test = await startTestApp({}, dataDir);
    await exercise(test);
    expect(tooOpen(dataDir)).toEqual([]);
  });
});
