// Starts the real API in-process on a fresh temp data dir with the embedded adapters, and captures its log lines.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { CreatedTenant, CreateTenantCommand } from '@vault/application';
import type { Actor } from '@vault/domain';
import { loadConfig, VaultBus, VaultConfig } from '@vault/nest';
import { createApp } from '../../apps/api/src/create-app';

export const BOOTSTRAP_KEY = 'test-bootstrap-key-0123456789-abcdefghijkl';

export interface TestApp {
  app: INestApplication;
  config: VaultConfig;
  dataDir: string;
  logs: string[];
  http: () => ReturnType<typeof request>;
  close(options?: { keepData?: boolean }): Promise<void>;
}

export async function startTestApp(env: Record<string, string> = {}, dataDir?: string): Promise<TestApp> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'vault-e2e-'));
  const config = loadConfig({ VAULT_DATA_DIR: dir, VAULT_BOOTSTRAP_KEY: BOOTSTRAP_KEY, VAULT_LOG_LEVEL: 'debug', ...env });
  const logs: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  // The JSON logger writes to stdout; keep its lines for the "no secrets in logs" checks instead of printing them.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    if (text.startsWith('{')) {
      logs.push(text);
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  const app = await createApp(config);
  await app.init();
  return {
    app,
    config,
    dataDir: dir,
    logs,
    http: () => request(app.getHttpServer()),
    async close(options = {}) {
      await app.close();
      process.stdout.write = write;
      if (!options.keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Creates an application through the API with the bootstrap key and returns it with its key. */
export async function createApplication(
  test: TestApp,
  body: Record<string, unknown>,
  key = BOOTSTRAP_KEY,
): Promise<{ id: string; key: string } & Record<string, unknown>> {
  const response = await test.http().post('/applications').set('SVC-API-KEY', key).send(body);
  if (response.status !== 201) throw new Error(`create application: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** Creates a tenant as the operator's `vault tenant create` does (the same command, through the bus); returns its management key. */
export async function createTenant(
  test: TestApp,
  name: string,
  actor: Actor = { type: 'operator', id: 'test' },
  correlationId = 'test',
): Promise<CreatedTenant> {
  return test.app.get(VaultBus).execute(new CreateTenantCommand(name, actor, correlationId));
}

/** Requests with `key` as SVC-API-KEY: `asKey(test, key).post('/tokens', body)`. PATCH sends a JSON merge patch. */
export const asKey = (test: TestApp, key: string) => ({
  get: (path: string) => test.http().get(path).set('SVC-API-KEY', key),
  post: (path: string, body?: unknown) => test.http().post(path).set('SVC-API-KEY', key).send(body as object),
  put: (path: string, body: unknown) => test.http().put(path).set('SVC-API-KEY', key).send(body as object),
  patch: (path: string, body: unknown, type = 'application/merge-patch+json') =>
    test.http().patch(path).set('SVC-API-KEY', key).set('Content-Type', type).send(JSON.stringify(body)),
  delete: (path: string) => test.http().delete(path).set('SVC-API-KEY', key),
});
