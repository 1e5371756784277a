// The embedded default never loads the EventStoreDB or Meilisearch client: they are required only when configured.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

const loadedClients = (entry: string): string[] => {
  const script = `
    require(${JSON.stringify(join(root, entry))});
    const clients = Object.keys(require.cache).filter((file) => /node_modules[\\\\/](meilisearch|@eventstore[\\\\/]db-client)[\\\\/]/.test(file));
    process.stdout.write(JSON.stringify(clients));`;
  const result = spawnSync(process.execPath, ['--no-node-snapshot', '-e', script], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as string[];
};

describe('production clients', () => {
  it.each(['dist/apps/api/src/app.module.js', 'dist/apps/cli/src/cli.module.js', 'dist/libs/nest/src/index.js'])(
    '%s loads neither the EventStoreDB nor the Meilisearch client',
    (entry) => {
      expect(loadedClients(entry)).toEqual([]);
    },
  );

  it('the subpaths that hold them do load them (so the check above can fail)', () => {
    expect(loadedClients('dist/libs/adapters/src/esdb.js').length).toBeGreaterThan(0);
    expect(loadedClients('dist/libs/adapters/src/meilisearch.js').length).toBeGreaterThan(0);
  });
});
