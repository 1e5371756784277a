// The operator's command line: tenants, projection rebuilds, official reactor formulas.
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CreateTenantCommand, EventStore, ImportOfficialFormulaCommand, rebuildReadModel } from '@vault/application';
import { ConfigError, EVENT_STORE, READ_MODELS, ReadModels, allProjections, VaultBus } from '@vault/nest';
import { parseArgs, ParsedArgs, UsageError } from './cli-args';
import { CliModule } from './cli.module';
import { importFormulas } from './commands/formulas-import';
import { formatProgress } from './progress';

const HELP = `Usage: npm run vault -- <command> [options]

Commands:
  tenant create --name <name>   Create a tenant and print {"tenant_id", "management_key"} as one JSON line
  projections rebuild           Replay the whole event log into a fresh read model and swap it in
  formulas import <path>        Create or update official reactor formulas from a JSON file or a folder of them
  help                          Show this help

Each command accepts --help. Configuration comes from the same environment variables as the API
(VAULT_DATA_DIR, VAULT_EVENT_STORE, VAULT_SEARCH, MEILI_MASTER_KEY); see the README.`;

const COMMAND_HELP: Record<string, string> = {
  'tenant create': `Usage: npm run vault -- tenant create --name <name>

Creates a tenant and its first management application, and prints one JSON line on stdout:
  {"tenant_id": "…", "management_key": "…"}
The key is shown only here; store it safely. Works while the API is running on the same data dir.`,
  'projections rebuild': `Usage: npm run vault -- projections rebuild

Replays the whole event log into a fresh read model (a new SQLite file, or new Meilisearch indexes)
and swaps it in atomically; a running API follows the swap within a second. The live read model is
never edited. Progress (events done, share of the log, events/s, ETA) is printed on stderr.`,
  'formulas import': `Usage: npm run vault -- formulas import <file-or-dir>

Imports official reactor formulas, visible to every tenant. Each JSON file holds one formula: the body of
POST /reactor-formulas plus a fixed "id" (UUID) and a "status" ("verified" or "coming_soon"), with
"type": "official". Importing the same file again updates that formula (or leaves it unchanged) instead of
adding a copy. The code is checked in the sandbox like an API create. Prints one line per file on stderr and a
JSON summary on stdout; exits 1 if any file failed. The repository ships formulas/official/.`,
};

async function main(argv: string[]): Promise<number> {
  // Every file and directory this process creates (the data dir, SQLite's -wal and -shm files) is owner-only.
  process.umask(0o077);
  const args = parseArgs(argv);
  const command = args.positionals.slice(0, 2).join(' ');
  if (args.positionals.length === 0 || args.positionals[0] === 'help') {
    process.stdout.write(HELP + '\n');
    return args.positionals.length === 0 && !args.options.help ? 2 : 0;
  }
  if (!(command in COMMAND_HELP)) throw new UsageError(`Unknown command "${args.positionals.join(' ')}".`);
  if (args.options.help) {
    process.stdout.write(COMMAND_HELP[command] + '\n');
    return 0;
  }
  // abortOnError: false so a start-up failure (a store that cannot be reached, a server too old) reaches the handler
  // below, which prints it, instead of Nest exiting silently.
  const app = await NestFactory.createApplicationContext(CliModule, { logger: false, abortOnError: false });
  try {
    if (command === 'tenant create') await createTenant(app, args);
    else if (command === 'formulas import') return await importOfficialFormulas(app, args);
    else await rebuild(app);
    return 0;
  } finally {
    await app.close();
  }
}

async function createTenant(app: INestApplicationContext, args: ParsedArgs): Promise<void> {
  const name = args.options.name;
  if (typeof name !== 'string' || name.trim() === '') throw new UsageError('tenant create needs --name <name>.');
  const created = await app.get(VaultBus).execute(new CreateTenantCommand(name, OPERATOR, randomUUID()));
  process.stdout.write(JSON.stringify(created) + '\n');
}

async function importOfficialFormulas(app: INestApplicationContext, args: ParsedArgs): Promise<number> {
  const path = args.positionals[2];
  if (!path) throw new UsageError('formulas import needs a file or directory.');
  const bus = app.get(VaultBus);
  const correlationId = randomUUID();
  const report = await importFormulas(
    (file) => bus.execute(new ImportOfficialFormulaCommand(file, OPERATOR, correlationId)),
    path,
    (line) => process.stderr.write(line + '\n'),
  );
  process.stdout.write(JSON.stringify(report) + '\n');
  return report.failed.length > 0 ? 1 : 0;
}

async function rebuild(app: INestApplicationContext): Promise<void> {
  const readModels = app.get<ReadModels>(READ_MODELS);
  process.stderr.write(`Rebuilding ${readModels.rebuildable.describe()}\n`);
  const result = await rebuildReadModel(app.get<EventStore>(EVENT_STORE), readModels.rebuildable, allProjections(), (p) =>
    process.stderr.write(formatProgress(p) + '\n'),
  );
  process.stdout.write(
    JSON.stringify({ events: result.events, seconds: round(result.seconds), events_per_second: Math.round(result.eventsPerSecond) }) + '\n',
  );
}

/** Who the event log records for the operator's commands. */
const OPERATOR = { type: 'operator', id: 'cli' } as const;

const round = (n: number) => Math.round(n * 100) / 100;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError || error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n\n${HELP}\n`);
      process.exit(2);
    }
    process.stderr.write(`vault: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
