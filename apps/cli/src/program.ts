// The commands, their arguments and their help as commander declares them; what each one does is in actions.ts.
import { Command, CommanderError } from 'commander';
import { packageVersion } from './package-version';

/** A mistake in how the CLI was called or configured: printed with the command's help, exit 2. */
export class UsageError extends Error {}

/** What the commands run; each resolves to the process's exit code. */
export interface CliActions {
  tenantCreate(name: string): Promise<number>;
  tenantDelete(id: string): Promise<number>;
  tenantList(): Promise<number>;
  backup(out: string): Promise<number>;
  restore(from: string): Promise<number>;
  projectionsRebuild(): Promise<number>;
  formulasImport(path: string): Promise<number>;
  keysRotateMaster(): Promise<number>;
}

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** The domain's MAX_TENANT_NAME_LENGTH; not imported, so that help and usage errors load no more than commander. */
const MAX_TENANT_NAME_LENGTH = 200;

/**
 * Parses `argv` (the arguments after `vault`), runs the command and resolves to the exit code; a failure rejects. The
 * actions are loaded only once a command is to run.
 */
export async function runProgram(argv: string[], loadActions: () => Promise<CliActions>): Promise<number> {
  let code: number = EXIT.ok;
  const program = vaultProgram(loadActions, (exitCode) => (code = exitCode));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (error) {
    // Help asked for exits 0; any other commander exit (unknown command, missing argument or option, no command) is
    // a usage error.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
}

export function vaultProgram(loadActions: () => Promise<CliActions>, exit: (code: number) => void): Command {
  const program = new Command('vault')
    .description(
      "The vault operator's command line: tenants, backups, read-model rebuilds and\n" +
        'official reactor formulas. Results are JSON lines on stdout; progress and logs\n' +
        'go to stderr.',
    )
    .version(packageVersion(), '-V, --version', "print the vault's version")
    // Set before the subcommands are added: each inherits them.
    .exitOverride()
    .showHelpAfterError()
    .configureHelp({ subcommandTerm: (cmd) => [cmd.name(), ...needs(cmd)].join(' ') });

  const tenant = program.command('tenant').description('Create tenants (the management key is shown once), list and delete them');
  const projections = program.command('projections').description('Rebuild the read models from the event log');
  const formulas = program.command('formulas').description('Import official reactor formulas');
  const keys = program.command('keys').description('Rotate the master key that wraps every tenant key');
  // Leaf commands at the top: `vault backup`, `vault restore`.
  const topLevel: Command[] = [];

  const run = <A extends unknown[]>(leaf: Command, action: (...args: A) => Promise<number>): Command =>
    leaf.action(async (...args: A) => {
      try {
        exit(await action(...args));
      } catch (error) {
        if (error instanceof UsageError) leaf.error(`error: ${error.message}`, { exitCode: EXIT.usage, code: 'vault.usage' });
        throw error;
      }
    });

  run(
    tenant
      .command('create')
      .summary('Create a tenant; print its id and key as JSON')
      .description(
        'Creates a tenant and its first management application, and prints one JSON\n' +
          'line on stdout:\n' +
          '  {"tenant_id": "…", "management_key": "…"}\n' +
          'The key is shown only here; store it safely, for instance:\n' +
          '  key=$(npm run -s vault -- tenant create --name acme | jq -r .management_key)\n' +
          'Works while the API is running on the same data dir; the new key is usable\n' +
          'within a second.',
      )
      .requiredOption('--name <name>', "the tenant's name"),
    async ({ name }: { name: string }) => {
      if (name.trim() === '') throw new UsageError('tenant create needs a non-blank --name <name>');
      // The domain's rule (MAX_TENANT_NAME_LENGTH, in code points), checked here so it is a usage error that names the option.
      if ([...name.trim()].length > MAX_TENANT_NAME_LENGTH) {
        throw new UsageError(`tenant create needs a --name <name> of 1 to ${MAX_TENANT_NAME_LENGTH} characters`);
      }
      return (await loadActions()).tenantCreate(name);
    },
  );

  run(
    tenant
      .command('delete')
      .summary('Delete a tenant with everything in it')
      .description(
        "Deletes the tenant as DELETE /tenants/self does: destroys the tenant's key, so\n" +
          "every token's data and every reactor configuration is shredded at once, and\n" +
          "removes its documents from the read models. Every key of the tenant answers\n" +
          '401 from then on, also in an API running on the same data dir. Prints\n' +
          '  {"tenant_id": "…", "deleted": true}\n' +
          'Exits 1 when no such tenant exists (or it was deleted already).',
      )
      .requiredOption('--id <uuid>', "the tenant's id"),
    async ({ id }: { id: string }) => {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new UsageError('tenant delete needs --id <uuid>, a tenant id');
      return (await loadActions()).tenantDelete(id.toLowerCase());
    },
  );

  run(
    tenant
      .command('list')
      .summary('Print every tenant as a JSON line')
      .description(
        'Prints one JSON line per tenant on stdout, oldest first, read from the event log\n' +
          '(so a tenant just created by this tool is listed even before an API projects it):\n' +
          '  {"id": "…", "name": "…", "created_at": "…"}\n' +
          'Deleted tenants are left out, and no key is ever printed. Nothing is printed\n' +
          'when there is no tenant.',
      ),
    async () => (await loadActions()).tenantList(),
  );

  run(
    projections
      .command('rebuild')
      .summary('Replay the event log into a fresh read model')
      .description(
        'Replays the whole event log into a fresh read model (a new SQLite file, or new\n' +
          'Meilisearch indexes) and swaps it in atomically; a running API follows the swap\n' +
          'within a second. The live read model is never edited. Progress (events done,\n' +
          'share of the log, events/s, ETA) is printed on stderr, then one JSON line on\n' +
          'stdout:\n' +
          '  {"events": …, "seconds": …, "events_per_second": …}',
      ),
    async () => (await loadActions()).projectionsRebuild(),
  );

  run(
    formulas
      .command('import')
      .summary('Create or update official reactor formulas')
      .description(
        'Imports official reactor formulas, visible to every tenant. Each JSON file holds\n' +
          'one formula: the body of POST /reactor-formulas plus a fixed "id" (UUID) and a\n' +
          '"status" ("verified" or "coming_soon"), with "type": "official". Importing the\n' +
          'same file again updates that formula (or leaves it unchanged) instead of adding\n' +
          'a copy. The code is checked in the sandbox like an API create. Prints one line\n' +
          'per file on stderr and a JSON summary on stdout:\n' +
          '  {"imported": [{"id", "name", "result", "file"}, …],\n' +
          '   "failed": [{"file", "error"}, …]}\n' +
          'Exits 1 if any file failed. The repository ships formulas/official/.',
      )
      .argument('<file-or-dir>', 'a formula JSON file, or a folder of them (imported in name order)'),
    async (path: string) => (await loadActions()).formulasImport(path),
  );

  run(
    keys
      .command('rotate-master')
      .summary('Re-wrap every tenant key under a new master key')
      .description(
        'Re-wraps every tenant key of the key store (keys.sqlite in VAULT_DATA_DIR)\n' +
          'under VAULT_MASTER_KEY, opening it with VAULT_MASTER_KEY_PREVIOUS, a batch per\n' +
          'transaction, while the API runs. Start the API with both variables first (it\n' +
          'then reads tenant keys wrapped under either), rotate, then restart it with\n' +
          'VAULT_MASTER_KEY alone: the previous key opens nothing any more. Killed\n' +
          'part-way, run it again: it goes on where it stopped. Progress on stderr, then\n' +
          'one JSON line on stdout:\n' +
          '  {"rewrapped": …, "already": …, "skipped": …, "total": …, "seconds": …}',
      ),
    async () => (await loadActions()).keysRotateMaster(),
  );

  topLevel.push(
    run(
      program
        .command('backup')
        .summary('Snapshot the embedded stores into a new folder')
        .description(
          'Takes a consistent snapshot of the embedded stores while the API runs (SQLite\n' +
            "VACUUM INTO, never a file copy): the event log in events.sqlite, the key store in\n" +
            'keys.sqlite (a file of its own: store it apart from the log), the generated\n' +
            'master.key if the vault uses one, and manifest.json with the versions, the\n' +
            "log's last event position and each file's SHA-256. The read models are not\n" +
            'copied: a restore rebuilds them from the log. Refuses an --out that exists and\n' +
            'is not empty. Progress on stderr, then one JSON line on stdout:\n' +
            '  {"out": "…", "events": …, "position": "…", "bytes": …, "seconds": …}',
        )
        .requiredOption('--out <dir>', 'the folder to write (created 0700; files 0600)'),
      async ({ out }: { out: string }) => (await loadActions()).backup(out),
    ),
    run(
      program
        .command('restore')
        .summary('Fill an empty data dir from a backup')
        .description(
          'Fills VAULT_DATA_DIR, which must be empty or missing, from a folder written by\n' +
            '`vault backup`: checks every file against the SHA-256 in manifest.json (a file\n' +
            'that does not match is named and nothing is restored), then copies the event\n' +
            'log, the key store and the master key file if the backup holds one. A backup\n' +
            'taken with VAULT_MASTER_KEY set needs the same VAULT_MASTER_KEY here (checked\n' +
            'against the manifest). The API started on the data dir rebuilds the read models\n' +
            'from the log. Prints one JSON line on stdout:\n' +
            '  {"data_dir": "…", "events": …, "position": "…"}',
        )
        .requiredOption('--from <dir>', 'a folder written by vault backup'),
      async ({ from }: { from: string }) => (await loadActions()).restore(from),
    ),
  );

  const leaves = [...program.commands.flatMap((group) => group.commands), ...topLevel];
  for (const leaf of leaves) if (needs(leaf).length > 0) leaf.usage(needs(leaf).join(' '));
  const synopses = leaves.map((leaf) => [...(leaf.parent === program ? [] : [leaf.parent!.name()]), leaf.name(), ...needs(leaf)].join(' '));
  const width = Math.max(...synopses.map((s) => s.length)) + 2;
  program.addHelpText(
    'after',
    [
      '',
      'Commands and what they need:',
      ...leaves.map((leaf, i) => `  ${synopses[i].padEnd(width)}${leaf.summary()}`),
      '',
      "Run it as `npm run -s vault -- <command>` (-s keeps npm's banner off stdout) or,",
      'once built, `npx selfhosted-token-vault <command>`. Each command accepts --help. Configuration',
      'comes from the same environment variables as the API (VAULT_DATA_DIR,',
      'VAULT_EVENT_STORE, VAULT_SEARCH, MEILI_MASTER_KEY); see the README.',
      'Exit status: 0 done, 1 failed ("vault: <reason>" on stderr), 2 usage or',
      'configuration error.',
    ].join('\n'),
  );
  return program;
}

/** What a command cannot run without: its mandatory options and its arguments (`--name <name>`, `<file-or-dir>`). */
function needs(cmd: Command): string[] {
  return [
    ...cmd.options.filter((option) => option.mandatory).map((option) => option.flags),
    ...cmd.registeredArguments.map((arg) => (arg.required ? `<${arg.name()}>` : `[${arg.name()}]`)),
  ];
}
