// Reactors survive every way the read model is rebuilt: `projections rebuild` (a replay into a fresh file, swapped in)
// and the start-up replay of a read-model file of the layout before reactors existed (user_version 2, no table).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { rebuildReadModel } from '@vault/application';
import { allProjections, EVENT_STORE, READ_MODELS, ReadModels } from '@vault/nest';
import { asKey, BOOTSTRAP_KEY, startTestApp, TestApp } from '../support/test-app';

const currentReadModel = (dataDir: string) =>
  join(dataDir, 'readmodel', readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim());

const reactorRows = (dataDir: string) => {
  const db = new Database(currentReadModel(dataDir), { readonly: true });
  try {
    return db.prepare('SELECT * FROM reactors ORDER BY id').all();
  } finally {
    db.close();
  }
};

describe('reactors across read-model rebuilds', () => {
  let test: TestApp;
  const admin = () => asKey(test, BOOTSTRAP_KEY);

  const seed = async () => {
    const formula = (
      await admin().post('/reactor-formulas', {
        name: 'Gateway',
        type: 'private',
        code: 'module.exports = async () => ({ raw: { n: 1 } });',
        configuration: [{ name: 'api_key', type: 'string' }],
        request_parameters: [],
      })
    ).body.id;
    const create = async (name: string) =>
      (await admin().post('/reactors', { name, formula: { id: formula }, configuration: { api_key: `key of ${name}` } })).body;
    const [kept, updated, deleted] = [await create('kept'), await create('updated'), await create('deleted')];
    expect((await admin().patch(`/reactors/${updated.id}`, { name: 'updated twice', configuration: { api_key: 'rotated' } })).status).toBe(200);
    expect((await admin().delete(`/reactors/${deleted.id}`)).status).toBe(204);
    return { kept, updated, deleted };
  };

  afterEach(() => test?.close());

  it('`projections rebuild` replays reactors into a read model equal to the live one', async () => {
    test = await startTestApp();
    const { updated } = await seed();
    const live = reactorRows(test.dataDir);
    expect(live).toHaveLength(2);
    const readModels = test.app.get<ReadModels>(READ_MODELS);
    await rebuildReadModel(test.app.get(EVENT_STORE), readModels.rebuildable, allProjections());
    expect(reactorRows(test.dataDir)).toEqual(live);
    expect(JSON.parse((live.find((row) => (row as { reactor_id: string }).reactor_id === updated.id) as { doc: string }).doc)).toMatchObject({
      name: 'updated twice',
      modified_by: expect.any(String),
    });
  });

  it('replays reactors at start-up into a fresh file when the read model predates them', async () => {
    test = await startTestApp();
    const { kept, updated, deleted } = await seed();
    const dataDir = test.dataDir;
    await test.close({ keepData: true });

    // The file as a version without reactors left it: layout 2, no reactors table.
    const old = new Database(currentReadModel(dataDir));
    old.exec('DROP TABLE reactors');
    old.pragma('user_version = 2');
    old.close();

    test = await startTestApp({}, dataDir);
    expect((await admin().get(`/reactors/${kept.id}`)).body).toMatchObject({ name: 'kept', configuration: { api_key: 'key of kept' } });
    expect((await admin().get(`/reactors/${updated.id}`)).body).toMatchObject({ name: 'updated twice', configuration: { api_key: 'rotated' } });
    expect((await admin().get(`/reactors/${deleted.id}`)).status).toBe(404);
    expect((await admin().get('/reactors')).body.pagination.total_items).toBe(2);
  });
});
