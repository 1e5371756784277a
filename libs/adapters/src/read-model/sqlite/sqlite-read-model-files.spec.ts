// Which read model files a starting process removes: those of rebuilds whose process is gone, never the current file
// nor the file of a rebuild still running in another process (the CLI's, while an API restarts).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RebuildTarget } from '@vault/application';
import { SqliteReadModel } from './sqlite-read-model';
import { applicationsTable, tenantsTable } from './sqlite-directory';

const collections = [tenantsTable, applicationsTable];

describe('read model files', () => {
  let dataDir: string;
  const open: SqliteReadModel[] = [];
  const readModel = () => {
    const model = SqliteReadModel.open(dataDir, collections);
    open.push(model);
    return model;
  };
  const dir = () => join(dataDir, 'readmodel');
  const current = () => readFileSync(join(dir(), 'CURRENT'), 'utf8').trim();
  const files = () => readdirSync(dir()).filter((name) => name.startsWith('readmodel-'));

  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'vault-rm-files-'))));
  afterEach(async () => {
    for (const model of open.splice(0)) await model.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a rebuild in progress keeps its file through another start-up, and swaps it in', async () => {
    const rebuilding = readModel();
    const target: RebuildTarget = await rebuilding.createRebuildTarget();
    const rebuildFiles = files().filter((name) => !name.startsWith(current()));
    expect(rebuildFiles.length).toBeGreaterThan(0);

    // Another process starting meanwhile (its own connections; SQLite's locks hold between connections of one process).
    readModel().removeStaleFiles();
    for (const name of rebuildFiles) expect({ name, exists: existsSync(join(dir(), name)) }).toEqual({ name, exists: true });

    await target.swapIn();
    expect(rebuildFiles.some((name) => name === current())).toBe(true);
    // The rebuild lock goes with the swap: nothing of the rebuild but its database file and companions is left.
    expect(files().filter((name) => name.endsWith('-rebuilding'))).toEqual([]);
  });

  it('a rebuild discarded after its swap wrote the pointer (a failure on the way out) keeps the file it made current', async () => {
    const model = readModel();
    const target = await model.createRebuildTarget();
    await target.swapIn();
    const swapped = current();
    await target.discard();
    expect(current()).toBe(swapped);
    expect(existsSync(join(dir(), swapped))).toBe(true);
  });

  it('a discarded rebuild leaves no file behind', async () => {
    const model = readModel();
    const before = files();
    await (await model.createRebuildTarget()).discard();
    expect(files()).toEqual(before);
  });

  it('removes the files of a rebuild whose process is gone (its lock is not held), and keeps the current file', () => {
    const model = readModel();
    const abandoned = 'readmodel-1-0badf00d.sqlite';
    for (const suffix of ['', '-wal', '-shm', '-rebuilding']) writeFileSync(join(dir(), abandoned + suffix), '');
    model.removeStaleFiles();
    expect(files().filter((name) => name.startsWith(abandoned))).toEqual([]);
    expect(existsSync(join(dir(), current()))).toBe(true);
  });
});
