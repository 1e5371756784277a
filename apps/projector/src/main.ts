// The event-stream consumer for the production stack: follows EventStoreDB and feeds the read models (Meilisearch).
// On the embedded read model it takes part in the data dir's projector election like every API process.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { LeasedProjector, Projector } from '@vault/application';
import { redactCredentials } from '@vault/adapters';
import { JsonLogger, loadConfig, PROJECTOR, VaultCoreModule } from '@vault/nest';

const HELP = `Usage: node dist/apps/projector/src/main.js

Runs the projections: follows the event log from the read model's checkpoint, applies every event
exactly once, and keeps following until SIGTERM. Configure with VAULT_EVENT_STORE, VAULT_SEARCH,
MEILI_MASTER_KEY and VAULT_DATA_DIR (see the README). Logs JSON lines with the projection lag.
With the embedded read model, one process of the data dir projects at a time (the holder of its
projector lease): while an API process holds it, this one waits and takes over when that one stops.`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(HELP + '\n');
    return;
  }
  // Every file and directory this process creates (the data dir, SQLite's -wal and -shm files) is owner-only.
  process.umask(0o077);
  const config = loadConfig();
  const logger = new JsonLogger(config.logLevel);

  @Module({ imports: [VaultCoreModule.forRoot({ projector: 'inline', config })] })
  class ProjectorModule {}

  // abortOnError: false so a start-up failure reaches main()'s handler, which logs it with its cause and exits 1.
  const app = await NestFactory.createApplicationContext(ProjectorModule, { logger, abortOnError: false });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('projector shutting down', { signal });
      app.close().then(() => process.exit(0), () => process.exit(1));
    });
  }
  const projector = app.get<Projector>(PROJECTOR);
  const first = await projector.status().catch(() => null);
  if (projector instanceof LeasedProjector && !projector.isProjecting) {
    logger.info('another process holds the projector lease; projecting once it is released or expires', { ...(first ?? {}) });
  } else logger.info('projector caught up; following the event log', { ...(first ?? {}) });
  // Every 5 s: a projector stopped for good (the event store denied access) ends the process with 1, so a supervisor
  // restarts it or reports it. Every 30 s the status is read and logged (reading it also finds a refusal of the
  // projector's reads). The timer also keeps the process alive meanwhile.
  let ticks = 0;
  const exitOn = (failure: string) => {
    clearInterval(timer);
    logger.error('projector stopped for good; exiting', { failure });
    void app.close().finally(() => process.exit(1));
  };
  const timer = setInterval(() => {
    if (projector.failureReason) return exitOn(projector.failureReason);
    if (++ticks % 6 !== 0) return;
    projector.status().then(
      (status) => (status.failure ? exitOn(status.failure) : logger.info('projection status', { ...status })),
      (error: unknown) => logger.error('projection status unavailable', { error: error instanceof Error ? error.name : 'unknown' }),
    );
  }, 5_000);
}

main().catch((error: unknown) => {
  // A store's client may quote VAULT_EVENT_STORE or VAULT_SEARCH, credentials included.
  const message = redactCredentials(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'projector failed', error: message }) + '\n');
  process.exit(1);
});
