// What each command does, in the vault's Nest context (the same bus and handlers as the API). main.ts loads this only
// when a command runs, so `--help` and usage errors answer without starting Nest.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CreateTenantCommand, DeleteTenantCommand, EventStore, ImportOfficialFormulaCommand, rebuildReadModel } from '@vault/application';
import { DomainError } from '@vault/domain';
import { restoreBackup, takeBackup } from '@vault/adapters/backup';
import { loadMasterKey, MASTER_KEY_FILE, MasterKeyError } from '@vault/adapters/crypto/master-key';
import { READ_MODEL_SCHEMA_VERSION } from '@vault/adapters/read-model/sqlite/sqlite-read-model';
import { ConfigError, EVENT_STORE, RAW_EVENT_STORE, READ_MODELS, ReadModels, allProjections, loadConfig, VaultBus, VaultConfig } from '@vault/nest';
import { CliModule } from './cli.module';
import { formulaFiles, importFormulas } from './reactor-formulas/formulas-import';
import { CliActions, EXIT, UsageError } from './program';
import { formatProgress } from './projections/rebuild-progress';
import { packageVersion } from './package-version';
import { listTenants } from './tenants/tenant-list';
import { isRotationRefusal, rotateMaster } from './keys/rotate-master';

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

  tenantList: async () => {
    // A data dir with no log has no tenant: answered without creating the data dir (and a master key) to say so.
    const config = cliConfig();
    if (config.eventStore === 'embedded' && !existsSync(join(config.dataDir, 'events.sqlite'))) return EXIT.ok;
    return withApp(async (app) => {
      for (const tenant of await listTenants(app.get<EventStore>(RAW_EVENT_STORE))) process.stdout.write(JSON.stringify(tenant) + '\n');
      return EXIT.ok;
    });
  },

  backup: async (out) => {
    const config = embeddedConfig('backup');
    // A refusal (BackupError) is a failure, exit 1, printed by main as "vault: <reason>".
    const result = takeBackup({
      dataDir: config.dataDir,
      out: resolvePath(out),
      vaultVersion: packageVersion(),
      readModelLayout: READ_MODEL_SCHEMA_VERSION,
      masterKey: masterKeyInUse(config),
      onProgress: (line) => process.stderr.write(line + '\n'),
    });
    if (result.manifest.master_key === 'file') {
      process.stderr.write(
        `vault: warning: the backup holds ${MASTER_KEY_FILE} (VAULT_MASTER_KEY is not set): with it and keys.sqlite the log is readable, so keep the backup as safe as the data dir.\n`,
      );
    }
    const { manifest } = result;
    process.stdout.write(
      JSON.stringify({ out: resolvePath(out), events: manifest.events, position: manifest.event_position, bytes: result.bytes, seconds: Math.round(result.seconds * 100) / 100 }) + '\n',
    );
    return EXIT.ok;
  },

  restore: async (from) => {
    const config = embeddedConfig('restore');
    const configured =
      config.masterKey === undefined ? null : masterKey(() => loadMasterKey({ configured: config.masterKey, dataDir: config.dataDir, allowGenerated: false }).key);
    const { manifest } = restoreBackup({
      from: resolvePath(from),
      dataDir: config.dataDir,
      configuredMasterKey: configured,
      onProgress: (line) => process.stderr.write(line + '\n'),
    });
    process.stderr.write('restore: done; the API started on this data dir rebuilds the read models from the log before it is ready\n');
    process.stdout.write(JSON.stringify({ data_dir: config.dataDir, events: manifest.events, position: manifest.event_position }) + '\n');
    return EXIT.ok;
  },

  keysRotateMaster: async () => {
    const config = cliConfig();
    const started = Date.now();
    try {
      const { master_key_file_left, ...result } = await rotateMaster(config, (line) => process.stderr.write(line + '\n'));
      if (master_key_file_left) {
        process.stderr.write(`vault: warning: ${MASTER_KEY_FILE} in the data dir opens nothing now; delete it once no backup needs it.\n`);
      }
      process.stdout.write(JSON.stringify({ ...result, seconds: Math.round((Date.now() - started) / 10) / 100 }) + '\n');
      return EXIT.ok;
    } catch (error) {
      if (isRotationRefusal(error)) throw new UsageError((error as Error).message);
      throw error;
    }
  },

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
      let last = '';
      const result = await rebuildReadModel(app.get<EventStore>(EVENT_STORE), readModels.rebuildable, allProjections(), (p) => {
        // The last periodic report and the final one can say the same: each line once.
        const line = formatProgress(p);
        if (line !== last) process.stderr.write(line + '\n');
        last = line;
      });
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

/** The configuration of a command that works on the embedded stores' files (backup, restore), without Nest. */
function embeddedConfig(command: string): VaultConfig {
  const config = cliConfig();
  if (config.eventStore !== 'embedded') {
    throw new UsageError(`${command} works on the embedded stores only; with EventStoreDB, back up its database with its own tools and keys.sqlite as a file`);
  }
  return config;
}

/** The environment's configuration; a bad value is a usage error (exit 2). */
function cliConfig(): VaultConfig {
  try {
    return loadConfig();
  } catch (error) {
    throw error instanceof ConfigError ? new UsageError(error.message) : error;
  }
}

/** The master key a backup is taken under: VAULT_MASTER_KEY, or the data dir's generated file (copied into the backup). */
function masterKeyInUse(config: VaultConfig): { key: Buffer; source: 'file' | 'environment' } {
  if (config.masterKey === undefined && !existsSync(join(config.dataDir, MASTER_KEY_FILE))) {
    throw new Error(`no master key: VAULT_MASTER_KEY is not set and ${config.dataDir} has no ${MASTER_KEY_FILE}`);
  }
  const loaded = masterKey(() => loadMasterKey({ configured: config.masterKey, dataDir: config.dataDir, allowGenerated: true }));
  return { key: loaded.key, source: loaded.source };
}

/** A malformed VAULT_MASTER_KEY is a configuration error (exit 2); the message never holds the value. */
function masterKey<T>(load: () => T): T {
  try {
    return load();
  } catch (error) {
    throw error instanceof MasterKeyError ? new UsageError(error.message) : error;
  }
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
