// The REST API. With the embedded defaults it also runs the projector, so this one process is the whole vault.
import 'reflect-metadata';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { ChildProcessReactorRuntime } from '@vault/adapters';
import { redactCredentials } from '@vault/adapters';
import { ConfigError, JsonLogger, loadConfig, REACTOR_RUNTIME } from '@vault/nest';
import { createApp } from './create-app';

async function main(): Promise<void> {
  // Every file and directory this process creates (the data dir, SQLite's -wal and -shm files) is owner-only.
  process.umask(0o077);
  const config = loadConfig();
  const logger = new JsonLogger(config.logLevel);
  const app = await createApp(config);
  const server = app.getHttpServer() as Server;
  let stopping = false;
  // Once stopping, every response closes its connection: a keep-alive client chaining requests would otherwise keep
  // the server open for ever. First of the 'request' listeners, so it runs before Express can answer.
  const answering = new Set<ServerResponse>();
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (stopping) response.shouldKeepAlive = false;
    else {
      answering.add(response);
      response.once('close', () => answering.delete(response));
    }
  });
  // Stop starting reactor runs and taking requests, let in-flight ones finish (a reactor run ends within its timeout
  // and grace, killed past it), stop the projector at a batch boundary, close the stores, exit 0.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info('shutting down', { signal });
      stopping = true;
      // Those being answered now close too (their headers are not sent yet, or the connection ends after them anyway).
      for (const response of answering) if (!response.headersSent) response.shouldKeepAlive = false;
      // Queued and new runs answer busy (503) from now on; runs under way go on until they end or are killed.
      app.get<ChildProcessReactorRuntime>(REACTOR_RUNTIME).drain();
      server.closeIdleConnections();
      // A request still open past the longest run (timeout + 1 s kill grace) has nothing left to wait for.
      setTimeout(() => server.closeAllConnections(), config.reactorTimeoutMs + 2000).unref();
      app.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error('shutdown failed', { error: String(error) });
          process.exit(1);
        },
      );
    });
  }
  // HOST: 127.0.0.1 unless the operator opens it wider (0.0.0.0 in a container, behind a TLS proxy).
  await app.listen(config.port, config.host);
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // One plain line for whoever started it; the JSON lines (this one's twin included) are for the log pipeline.
  const local = ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost'].includes(config.host);
  const url = `http://${local ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  process.stdout.write(`Vault API listening on ${url} (docs: ${url}/docs, metrics: ${url}/metrics, data: ${config.dataDir})\n`);
  logger.info('vault API listening', {
    host: config.host,
    port,
    data_dir: config.dataDir,
    event_store: config.eventStore === 'embedded' ? 'embedded' : 'eventstoredb',
    search: config.search === 'embedded' ? 'embedded' : 'meilisearch',
    projector: config.projector,
  });
}

main().catch((error: unknown) => {
  const raw = error instanceof ConfigError ? error.message : error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // A store's client may quote VAULT_EVENT_STORE or VAULT_SEARCH, credentials included.
  const message = redactCredentials(raw);
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: 'vault API failed to start', error: message }) + '\n');
  process.exit(1);
});
