// Catch-up speed of the Meilisearch read model: the real Projector follows the bench's embedded event log
// into an empty Meilisearch read model under a fresh index prefix, for at most --seconds, and prints one JSON line with
// events/s. Run by the rebuild phase of run.mjs when MEILI_URL is set; alone after `npm run build`:
//   MEILI_URL=http://localhost:7700 MEILI_MASTER_KEY=… node scripts/bench/meili-catch-up.mjs --data-dir DIR [--seconds 60]
// The indexes it creates are deleted at the end. The log is only read (the API may keep running on it).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = dirname(fileURLToPath(import.meta.url));
const DIST = join(resolve(HERE, '..', '..'), 'dist');
const SAMPLE_MS = 250;

const fail = (message, status = 1) => {
  process.stderr.write(`meili-catch-up: ${message}\n`);
  process.exit(status);
};

const { values: args } = parseArgs({ options: { 'data-dir': { type: 'string' }, seconds: { type: 'string', default: '60' } }, strict: true });
const seconds = Number(args.seconds);
if (!args['data-dir'] || !Number.isFinite(seconds) || seconds <= 0) fail('needs --data-dir DIR and --seconds S > 0', 2);
const url = process.env.MEILI_URL;
if (!url) fail('set MEILI_URL (and MEILI_MASTER_KEY) to the Meilisearch server to measure', 2);

// The event log's native module and the app's other native dependencies want --no-node-snapshot on Node 20.
if (!process.execArgv.includes('--no-node-snapshot')) {
  const rerun = spawnSync(process.execPath, ['--no-node-snapshot', ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(rerun.status ?? 1);
}
if (!existsSync(join(DIST, 'libs', 'adapters', 'src', 'index.js'))) fail('dist/ is missing: run npm run build first (npm run bench does)');

const require = createRequire(import.meta.url);
const adapters = require(join(DIST, 'libs', 'adapters', 'src', 'index.js'));
const application = require(join(DIST, 'libs', 'application', 'src', 'index.js'));

const prefix = `vault_bench_catch_up_${Date.now()}_${randomBytes(3).toString('hex')}`;
const model = new adapters.MeiliReadModel({ host: url, apiKey: process.env.MEILI_MASTER_KEY, indexPrefix: prefix }, [
  adapters.meiliTenantsCollection,
  adapters.meiliApplicationsCollection,
  adapters.meiliFormulasCollection,
  adapters.meiliTokensCollection,
]);
const projections = new application.ProjectionSet([
  application.tenantsProjection,
  application.applicationsProjection,
  application.formulasProjection,
  application.tokensProjection,
]);
const log = adapters.SqliteEventStore.open(args['data-dir']);

// The real store, counting the batches its subscription hands the projector.
const batches = { count: 0, events: 0 };
const subscribe = (options) =>
  log.subscribe({
    ...options,
    onEvents: (events) => {
      batches.count += 1;
      batches.events += events.length;
      return options.onEvents(events);
    },
  });
const counted = new Proxy(log, {
  get: (store, name) => (name === 'subscribe' ? subscribe : typeof store[name] === 'function' ? store[name].bind(store) : store[name]),
});

const quiet = { info: () => undefined, error: (message, fields) => process.stderr.write(`projector: ${message} ${fields?.error ?? ''}\n`) };
const projector = new application.Projector(counted, model, projections, quiet);

let result;
let failure = null;
try {
  const { pkgVersion } = await model.client.getVersion();
  await model.ensureSetup();
  const head = await log.headPosition();
  const total = head === null ? 0 : Number(head.commit);
  const started = performance.now();
  let caughtUp = false;
  void projector.start().then(() => (caughtUp = true));
  let applied = 0;
  while (!caughtUp && performance.now() - started < seconds * 1000) {
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
    const checkpoint = await model.checkpoint();
    applied = checkpoint === null ? 0 : Number(checkpoint.commit);
  }
  const elapsed = (performance.now() - started) / 1000;
  await projector.stop();
  const checkpoint = await model.checkpoint();
  // Embedded log positions are sequence numbers, so the checkpoint counts the events applied.
  applied = checkpoint === null ? 0 : Number(checkpoint.commit);
  result = {
    meilisearch_version: pkgVersion,
    log_events: total,
    events_applied: applied,
    seconds: Math.round(elapsed * 100) / 100,
    events_per_second: Math.round(applied / elapsed),
    caught_up: applied >= total,
    batches: batches.count,
    mean_batch_events: batches.count > 0 ? Math.round(batches.events / batches.count) : 0,
  };
} catch (error) {
  failure = `${error?.name ?? 'Error'}: ${error?.message ?? error}`;
} finally {
  await projector.stop().catch(() => undefined);
  await log.close();
  await deleteIndexes().catch((error) => process.stderr.write(`meili-catch-up: could not delete the ${prefix}_* indexes: ${error?.message ?? error}\n`));
}
if (failure) fail(failure);
process.stdout.write(JSON.stringify(result) + '\n');

async function deleteIndexes() {
  const { results } = await model.client.getRawIndexes({ limit: 1000 });
  const mine = results.filter((index) => index.uid.startsWith(`${prefix}_`));
  await Promise.all(mine.map((index) => model.client.deleteIndex(index.uid).waitTask({ timeout: 120_000 })));
}
