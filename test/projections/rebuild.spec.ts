// A rebuilt read model equals the live one, row for row, and the live one is never edited during the rebuild.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rebuildReadModel, RebuildProgress } from '@vault/application';
import { EVENT_STORE, READ_MODELS, ReadModels, allProjections } from '@vault/nest';
import { BOOTSTRAP_KEY, createApplication, startTestApp, TestApp } from '../support/test-app';

function dump(dataDir: string): Record<string, unknown[]> {
  const file = readFileSync(join(dataDir, 'readmodel', 'CURRENT'), 'utf8').trim();
  const db = new Database(join(dataDir, 'readmodel', file), { readonly: true });
  try {
    // broad_terms and token_index_state are the search bitmaps' build hints, computed when a process first builds them;
    // planner_statistics is the file's size at its last ANALYZE, which differs between a rebuilt file and the live one.
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT IN ('broad_terms', 'token_index_state', 'planner_statistics') ORDER BY name")
      .all() as Array<{ name: string }>;
    return Object.fromEntries(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM ${name} ORDER BY 1`).all()]));
  } finally {
    db.close();
  }
}

describe('projection rebuild', () => {
  let test: TestApp;
  beforeAll(async () => {
    test = await startTestApp();
  });
  afterAll(() => test.close());

  it('replays the log into a fresh read model equal to the live one, then swaps it in', async () => {
    const apps = [];
    for (let i = 0; i < 12; i++) apps.push(await createApplication(test, { name: `app-${i}`, type: 'private', permissions: ['token:read'] }));
    const admin = (path: string) => test.http().post(path).set('SVC-API-KEY', BOOTSTRAP_KEY);
    await test.http().put(`/applications/${apps[0].id}`).set('SVC-API-KEY', BOOTSTRAP_KEY).send({ name: 'renamed', type: 'private' });
    await admin(`/applications/${apps[1].id}/regenerate`);
    await test.http().delete(`/applications/${apps[2].id}`).set('SVC-API-KEY', BOOTSTRAP_KEY);

    const live = dump(test.dataDir);
    expect(live.applications).toHaveLength(12); // 11 of ours left + the bootstrap management application
    const liveFile = readFileSync(join(test.dataDir, 'readmodel', 'CURRENT'), 'utf8');

    const readModels = test.app.get<ReadModels>(READ_MODELS);
    const progress: RebuildProgress[] = [];
    const result = await rebuildReadModel(test.app.get(EVENT_STORE), readModels.rebuildable, allProjections(), (p) => progress.push(p));

    expect(result.events).toBe(2 + 12 + 3);
    expect(progress[progress.length - 1]).toMatchObject({ events: 17, total: 17, etaSeconds: 0 });
    expect(readFileSync(join(test.dataDir, 'readmodel', 'CURRENT'), 'utf8')).not.toBe(liveFile);
    expect(dump(test.dataDir)).toEqual(live);
  });
});
