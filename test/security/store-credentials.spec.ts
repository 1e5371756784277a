// Store URLs and connection strings may carry credentials (`esdb://user:pw@…`, `http://user:pw@…`): no log line and no
// start-up error holds them, and the clients' own warnings do not escape the JSON logger as plain lines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redactCredentials } from '@vault/adapters';
import { EsdbEventStore } from '@vault/adapters/esdb';
import { loadConfig, openReadModels } from '@vault/nest';

/** Runs `work`, capturing everything written to stdout, stderr and the console meanwhile. */
async function captured(work: () => Promise<unknown>): Promise<{ output: string[]; error: unknown }> {
  const output: string[] = [];
  const keep = (chunk: unknown) => void output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString());
  const saved = { out: process.stdout.write, err: process.stderr.write, warn: console.warn, log: console.log, error: console.error };
  process.stdout.write = ((chunk: unknown) => (keep(chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown) => (keep(chunk), true)) as typeof process.stderr.write;
  console.warn = console.log = console.error = (...args: unknown[]) => keep(args.map(String).join(' '));
  let error: unknown;
  try {
    await work();
  } catch (caught) {
    error = caught;
  } finally {
    Object.assign(process.stdout, { write: saved.out });
    Object.assign(process.stderr, { write: saved.err });
    Object.assign(console, { warn: saved.warn, log: saved.log, error: saved.error });
  }
  return { output, error };
}

const lines = (output: string[]) => output.join('').split('\n').filter((line) => line !== '');

describe('store credentials never reach a log line or an error', () => {
  it('redacts userinfo and secret-named query parameters, leaving the rest readable', () => {
    expect(redactCredentials('Request to http://user:SECRETPW5678@127.0.0.1:1/version has failed')).toBe(
      'Request to http://[redacted]@127.0.0.1:1/version has failed',
    );
    expect(redactCredentials('esdb://admin:p@ss:w0rd@h1:2113,h2:2113?tls=false&password=SECRETPW1&userKeyFile=/k')).toBe(
      'esdb://[redacted]@h1:2113,h2:2113?tls=false&password=[redacted]&userKeyFile=[redacted]',
    );
    expect(redactCredentials('http://meili.example:7700/indexes?apiKey=SECRETPW2&limit=20')).toBe('http://meili.example:7700/indexes?apiKey=[redacted]&limit=20');
    expect(redactCredentials('embedded, no URL here; a@b.c')).toBe('embedded, no URL here; a@b.c');
  });

  it('turns the EventStoreDB client\'s warning about an unknown option into one JSON line without the connection string', async () => {
    const { output, error } = await captured(async () => {
      const store = EsdbEventStore.fromConnectionString('esdb://admin:SECRETPW77@127.0.0.1:2113?bogusopt=1');
      await store.close();
    });
    expect(error).toBeUndefined();
    const written = lines(output);
    expect(written.join('\n')).not.toContain('SECRETPW77');
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0])).toMatchObject({ level: 'warn', msg: 'VAULT_EVENT_STORE: Unknown option key "bogusopt", setting will be ignored.' });
  });

  it.each([
    'esdb://admin:SECRETPW77@127.0.0.1:2113?tls=maybe',
    'esdb://admin:SECRETPW77@127.0.0.1:notaport',
    'esdb://admin:SECRETPW77@127.0.0.1:2113?nodePreference=SECRETPW77x',
  ])('refuses the connection string %s with an error that quotes none of it', async (connectionString) => {
    const { output, error } = await captured(async () => EsdbEventStore.fromConnectionString(connectionString));
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^VAULT_EVENT_STORE is not a valid EventStoreDB connection string: /);
    expect(`${(error as Error).message}\n${(error as Error).stack}\n${output.join('')}`).not.toMatch(/SECRET|PW77/);
  });

  it('starting on a Meilisearch URL with credentials that cannot be reached fails without logging or throwing the password', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vault-credentials-'));
    try {
      const config = loadConfig({ VAULT_DATA_DIR: dir, VAULT_SEARCH: 'http://user:SECRETPW5678@127.0.0.1:1', VAULT_LOG_LEVEL: 'debug' });
      // What the app's start-up runs first for that setting (the whole app would leave its other providers running).
      const { output, error } = await captured(() => openReadModels(config));
      expect(error).toBeInstanceOf(Error);
      const message = `${(error as Error).name}: ${(error as Error).message}`;
      expect(message).toContain('http://[redacted]@127.0.0.1:1/version');
      expect(`${message}\n${(error as Error).stack}\n${output.join('')}`).not.toContain('SECRETPW5678');
      // Everything written meanwhile is a JSON line of the logger.
      for (const line of lines(output)) expect(() => JSON.parse(line)).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
