// Builds the HTTP application; main.ts listens, tests use it directly.
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { BootstrapTenantCommand } from '@vault/application';
import { JsonLogger, LOGGER, READ_MODELS, ReadModels, VaultBus, VaultConfig, VaultMetrics } from '@vault/nest';
import { serveApiDocs } from './api-docs';
import { appModule } from './app.module';
import { jsonBodies } from './http/body-parsing';
import { proxyBodies } from './proxies/proxy-bodies';
import { requestContext } from './http/request-context.middleware';

export async function createApp(config: VaultConfig): Promise<INestApplication> {
  const logger = new JsonLogger(config.logLevel);
  const app = await NestFactory.create<NestExpressApplication>(appModule(config), {
    bodyParser: false,
    // Nest's own start-up lines (modules loaded, routes mapped) come through the logger's `log`, at debug level.
    logger,
    // Start-up failures (a store that cannot be reached) reach main(), which logs them and exits 1.
    abortOnError: false,
  });
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestContext(app.get<JsonLogger>(LOGGER), app.get(VaultMetrics)));
  // Proxy invocations carry bodies of any type, read as bytes; every other route takes JSON.
  app.use(proxyBodies);
  app.use(jsonBodies);
  serveApiDocs(app);
  // Initialised here, not by listen(): the bootstrap goes through the command bus, whose handlers register on init.
  await app.init();
  await bootstrapTenant(app, config, logger);
  return app;
}

async function bootstrapTenant(app: INestApplication, config: VaultConfig, logger: JsonLogger): Promise<void> {
  if (!config.bootstrapKey) {
    // Only for a vault with no tenant yet: once one exists, the hint is noise on every start.
    if ((await app.get<ReadModels>(READ_MODELS).tenants.count()) === 0) {
      logger.info('no tenant yet; create one with: npm run -s vault -- tenant create --name <name>');
    }
    return;
  }
  const created = await app.get(VaultBus).execute(new BootstrapTenantCommand(config.bootstrapKey, 'bootstrap'));
  if (created) logger.info('bootstrap created tenant "default" with VAULT_BOOTSTRAP_KEY as its management key', { tenant_id: created.tenant_id });
}
