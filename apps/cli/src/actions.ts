// What each command does, in the vault's Nest context (the same bus and handlers as the API). main.ts loads this only
// when a command runs, so `--help` and usage errors answer without starting Nest.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CreateTenantCommand, DeleteTenantCommand, EventStore, ImportOfficialFormulaCommand, rebuildReadModel } from '@vault/application';
import { DomainError } from '@vault/domain';
import { ConfigError, EVENT_STORE, READ_MODELS, ReadModels, allProjections, loadConfig, VaultBus } from '@vault/nest';
import { CliModule } from './cli.module';
import { formulaFiles, importFormulas } from './reactor-formulas/formulas-import';
import { CliActions, EXIT, UsageError } from './program';
import { formatProgress } from './projections/rebuild-progress';

/** Who the event log records for the operator's commands. */
const OPERATOR = { type: 'operator', id: 'cli' } as const;

export const actions: CliActions = {
  tenantCreate: (name) =>
    withApp(async (app) => {
      const created = await app
        .get(VaultBus)
        .execute(new CreateTenantCommand(name, OPERATOR, randomUUID()))
        .catch((error: unknown) => Promise.reject(asUsageError(error, { name: '--name' })));
      process.stdout.write(JSON.stringify(created) + '\n');
      return EXIT.ok;
    }),

  tenantDelete: (id) =>
    withApp(async (app) => {
      try {
        await app.get(VaultBus).execute(new DeleteTenantCommand(id, OPERATOR, randomUUID()));
      } catch (error) {
        if (!(error instanceof DomainError && error.kind === 'not_found')) throw error;
        process.stderr.write(`vault: No tenant ${id} (never created, or deleted already).\n`);
        return EXIT.failed;
      }
      process.stdout.write(JSON.stringify({ tenant_id: id, deleted: true }) + '\n');
      return EXIT.ok;
    }),

  formulasImport: (path) => {
    // Before the stores open, so a mistyped path creates no data dir.
    const files = formulaFiles(path);
    return withApp(async (app) => {
      const bus = app.get(VaultBus);
      const correlationId = randomUUID();
      const report = await importFormulas(
        (file) => bus.execute(new ImportOfficialFormulaCommand(file, OPERATOR, correlationId)),
        files,
        (line) => process.stderr.write(line + '\n'),
      );
      process.stdout.write(JSON.stringify(report) + '\n');
      return report.failed.length > 0 ? EXIT.failed : EXIT.ok;
    });
  },

  projectionsRebuild: () =>
    withApp(async (app) => {
      const readModels = app.get<ReadModels>(READ_MODELS);
      process.stderr.write(`Rebuilding ${readModels.rebuildable.describe()}\n`);
      const result = await rebuildReadModel(app.get<EventStore>(EVENT_STORE), readModels.rebuildable, allProjections(), (p) =>
        process.stderr.write(formatProgress(p) + '\n'),
      );
      const seconds = Math.round(result.seconds * 100) / 100;
      process.stdout.write(JSON.stringify({ events: result.events, seconds, events_per_second: Math.round(result.eventsPerSecond) }) + '\n');
      return EXIT.ok;
    }),
};

/**
 * A validation error of the domain about what the operator typed is a usage error (exit 2) naming the option: its
 * messages name the field (`name must be 1 to 200 characters long`), never the value. Anything else is as it was.
 */
function asUsageError(error: unknown, options: Record<string, string>): unknown {
  if (!(error instanceof DomainError && error.kind === 'validation')) return error;
  const reasons = Object.entries(error.errors ?? {}).map(([field, messages]) => `${Object.hasOwn(options, field) ? options[field] : field}: ${messages.join('; ')}`);
  return new UsageError(reasons.length > 0 ? reasons.join('; ') : error.message);
}

/** Starts the vault's Nest context (stores, bus, handlers; no projector) for one command and closes it after. */
async function withApp(command: (app: INestApplicationContext) => Promise<number>): Promise<number> {
  let app: INestApplicationContext;
  try {
    // abortOnError: false so a start-up failure (a store that cannot be reached, a server too old) reaches main's
    // handler, which prints it, instead of Nest exiting silently.
    app = await NestFactory.createApplicationContext(CliModule.forRoot(loadConfig()), { logger: false, abortOnError: false });
  } catch (error) {
    throw error instanceof ConfigError ? new UsageError(error.message) : error;
  }
  try {
    return await command(app);
  } finally {
    await app.close();
  }
}
