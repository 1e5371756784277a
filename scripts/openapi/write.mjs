// Writes the OpenAPI document the API serves (GET /openapi.json of the built app, dist/) to a file and prints its path,
// for `npm run lint:openapi`. The app runs on a fresh temporary data directory, listening on loopback only.
// Usage: node --no-node-snapshot scripts/openapi/write.mjs [output.json]   (after `npm run build`)
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const createAppFile = join(root, 'dist/apps/api/src/create-app.js');
if (!existsSync(createAppFile)) {
  process.stderr.write('dist/ has no API: run `npm run build` first.\n');
  process.exit(1);
}
const { createApp } = require(createAppFile);
const { loadConfig } = require(join(root, 'dist/libs/nest/src/index.js'));

const output = resolve(process.argv[2] ?? join(tmpdir(), 'selfhosted-token-vault-openapi.json'));
const dataDir = mkdtempSync(join(tmpdir(), 'vault-openapi-'));
// The JSON log lines go to stdout, where the path is printed: only errors are logged.
const app = await createApp(loadConfig({ VAULT_DATA_DIR: dataDir, VAULT_LOG_LEVEL: 'error', PORT: '0' }));
try {
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address();
  const response = await fetch(`http://127.0.0.1:${port}/openapi.json`);
  if (!response.ok) throw new Error(`GET /openapi.json answered ${response.status}`);
  writeFileSync(output, `${JSON.stringify(await response.json(), null, 2)}\n`);
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(`${output}\n`);
