// The operator's command line: tenants, projection rebuilds, official reactor formulas. The commands and their help are
// declared in program.ts; what they do is in actions.ts, its longer steps in a folder per feature (reactor-formulas/,
// projections/).
import { EXIT, runProgram } from './program';

// Every file and directory this process creates (the data dir, SQLite's -wal and -shm files) is owner-only.
process.umask(0o077);
// A reader that went away (`vault --help | head`) ends the output, not the process with a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT.ok);
  throw error;
});
runProgram(process.argv.slice(2), async () => (await import('./actions.js')).actions).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // A store's client may quote VAULT_EVENT_STORE or VAULT_SEARCH, credentials included. Loaded only on failure.
    const { redactCredentials } = require('@vault/adapters/system/redact-credentials') as typeof import('@vault/adapters/system/redact-credentials');
    process.stderr.write(`vault: ${redactCredentials(error instanceof Error ? error.message : String(error))}\n`);
    process.exit(EXIT.failed);
  },
);
