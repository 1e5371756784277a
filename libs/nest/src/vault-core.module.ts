// Wires ports to adapters for every app (API, projector, CLI): the event store, read models, projector and use cases.
import { BeforeApplicationShutdown, DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import {
  AccessLog,
  Authenticator,
  CommandRunner,
  DEFAULT_GROUP_COMMIT,
  disabledAccessLog,
  EventStore,
  GroupCommitAccessLog,
  keyShreddingProjection,
  LeasedProjector,
  PollingProjectionWaiter,
  ProjectionSet,
  ProjectionWaiter,
  Projector,
  WebhookDispatcher,
  GroupCommitAppender,
} from '@vault/application';
import {
  AesGcmTokenCrypto,
  apiKeys,
  ChildProcessCodeChecker,
  ChildProcessReactorRuntime,
  AllowedHosts,
  HttpProxyEgress,
  KeyShreddingStore,
  LiquidExpressionEngine,
  loadMasterKey,
  loadPreviousMasterKey,
  NodeWebhookCrypto,
  SqliteKeyStore,
  systemClock,
  uuidGenerator,
} from '@vault/adapters';
import { ExpressionEngine, FORMULA_STREAM_PREFIX, PROXY_STREAM_PREFIX, TOKEN_STREAM_PREFIX, REACTOR_STREAM_PREFIX, TENANT_STREAM_PREFIX, WEBHOOK_STREAM_PREFIX } from '@vault/domain';
import type { FormulaCodeChecker, ProxyEgress, TokenCrypto, TenantKeys, ReactorRuntime } from '@vault/application';
import { loadConfig, VaultConfig } from './config';
import { openEventStore, openRawEventStore } from './event-store';
import { JsonLogger } from './json-logger';
import { allProjections, openReadModels, ReadModels } from './read-models';
import {
  ACCESS_LOG,
  EVENT_STORE,
  RAW_EVENT_STORE,
  EXPRESSION_ENGINE,
  FORMULA_CODE_CHECKER,
  KEY_SHREDDER,
  KEY_STORE_HANDLE,
  LOGGER,
  PROJECTION_WAITER,
  PROJECTOR,
  PROJECTOR_MODE,
  REACTOR_RUNTIME,
  READ_MODELS,
  TOKEN_CRYPTO,
  TENANT_KEYS,
  USE_CASE_PORTS,
  VAULT_CONFIG,
  PROXY_EGRESS,
  WEBHOOK_DELIVERY,
} from './di-tokens';
import './request-context';
import { useCaseProviders, UseCasePorts, VaultBus } from './use-cases';
import { WebhookDelivery, WebhookDeliveryHub } from './webhook-delivery';

const webhookCrypto = new NodeWebhookCrypto();

/** inline: this process runs the projector (embedded default). external: another process does (apps/projector). none: the CLI. */
export type ProjectorMode = 'inline' | 'external' | 'none';

@Injectable()
class Shutdown implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(PROJECTOR) private readonly projector: Projector | null,
    @Inject(KEY_SHREDDER) private readonly shredder: Projector | null,
    @Inject(READ_MODELS) private readonly readModels: ReadModels,
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(KEY_STORE_HANDLE) private readonly keys: SqliteKeyStore,
    @Inject(REACTOR_RUNTIME) private readonly reactors: ChildProcessReactorRuntime,
    @Inject(ACCESS_LOG) private readonly accessLog: AccessLog,
    @Inject(PROXY_EGRESS) private readonly egress: HttpProxyEgress,
    @Inject(WEBHOOK_DELIVERY) private readonly webhooks: WebhookDelivery | null,
  ) {}

  /** Before the HTTP server closes: queued and new reactor runs answer busy (503); runs under way go on to their end. */
  beforeApplicationShutdown(): void {
    this.reactors.drain();
  }

  async onApplicationShutdown(): Promise<void> {
    // First: runs still going end as busy (503) rather than against closed stores.
    await this.reactors.close();
    this.egress.close();
    await this.webhooks?.close();
    await this.projector?.stop();
    await this.shredder?.stop();
    // Access records already queued are written before the event log closes.
    if (this.accessLog instanceof GroupCommitAccessLog) await this.accessLog.flush();
    await this.readModels.close();
    await this.events.close();
    this.keys.close();
  }
}

@Global()
@Module({})
export class VaultCoreModule {
  static forRoot(options: {
    projector: ProjectorMode;
    config?: VaultConfig;
    logTo?: 'stdout' | 'stderr';
    /** Run the key shredder (the API: the process that holds the key store and deletes tokens). */
    shredder?: boolean;
  }): DynamicModule {
    const config = options.config ?? loadConfig();
    return {
      module: VaultCoreModule,
      // The command and query buses every app dispatches through (VaultBus); the handlers are registered below.
      imports: [CqrsModule.forRoot()],
      providers: [
        { provide: VAULT_CONFIG, useValue: config },
        { provide: PROJECTOR_MODE, useValue: options.projector },
        {
          provide: LOGGER,
          // The CLI keeps stdout for its one JSON result line, so its logs go to stderr.
          useValue: new JsonLogger(config.logLevel, options.logTo === 'stderr' ? (line) => process.stderr.write(line + '\n') : undefined),
        },
        { provide: RAW_EVENT_STORE, inject: [LOGGER], useFactory: (logger: JsonLogger) => openRawEventStore(config, (message) => logger.warn(message)) },
        { provide: EVENT_STORE, inject: [RAW_EVENT_STORE, TOKEN_CRYPTO], useFactory: (raw: EventStore, crypto: TokenCrypto) => openEventStore(raw, crypto) },
        { provide: READ_MODELS, useFactory: () => openReadModels(config) },
        {
          provide: PROJECTOR,
          inject: [EVENT_STORE, READ_MODELS, LOGGER],
          useFactory: async (events: EventStore, readModels: ReadModels, logger: JsonLogger) => {
            if (options.projector !== 'inline') return null;
            // Several processes on one data dir: the lease holder projects, the others follow until they can take it.
            const projector = readModels.projectorLease
              ? new LeasedProjector(events, readModels.projectionStore, allProjections(), logger, readModels.projectorLease)
              : new Projector(events, readModels.projectionStore, allProjections(), logger);
            readModels.onSwap?.((reopen) => {
              void projector.restart(reopen).then(() => logger.info('switched to the rebuilt read model'));
            });
            await projector.start();
            return projector;
          },
        },
        {
          provide: PROJECTION_WAITER,
          inject: [PROJECTOR, READ_MODELS, LOGGER],
          useFactory: (projector: Projector | null, readModels: ReadModels, logger: JsonLogger): ProjectionWaiter => {
            if (projector) return projector;
            if (options.projector === 'external') {
              // Reads follow a rebuild that another process swapped in.
              readModels.onSwap?.((reopen) => void reopen().then(() => logger.info('switched to the rebuilt read model')));
              return new PollingProjectionWaiter(readModels.projectionStore);
            }
            // The CLI answers as soon as the event is durable; a running API or projector applies it within a second.
            return { waitFor: async () => true };
          },
        },
        {
          provide: CommandRunner,
          inject: [EVENT_STORE, PROJECTION_WAITER],
          useFactory: (events: EventStore, waiter: ProjectionWaiter) =>
            // Concurrent commands' appends share one transaction on the embedded log (its appendMany is all or nothing).
            new CommandRunner(events, waiter, { maxAttempts: 5, writeWaitMs: config.writeWaitMs, groupCommit: config.eventStore === 'embedded' }),
        },
        // In the reactor runtime's killable children: a formula's top level V8 cannot stop must not spin in this process.
        { provide: FORMULA_CODE_CHECKER, inject: [REACTOR_RUNTIME], useFactory: (reactors: ChildProcessReactorRuntime) => new ChildProcessCodeChecker(reactors) },
        {
          provide: REACTOR_RUNTIME,
          // Child processes, so that a run V8 cannot stop (JSON.parse, Intl, normalize loops) is killed at its wall time.
          useFactory: () =>
            new ChildProcessReactorRuntime({
              timeoutMs: config.reactorTimeoutMs,
              memoryLimitMb: config.reactorMemoryMb,
              concurrency: config.reactorConcurrency,
              allowedHosts: config.reactorAllowedHosts,
              user: config.reactorUser,
            }),
        },
        // Data keys live apart from the event log so that destroying one shreds every copy of a token's data.
        { provide: KEY_STORE_HANDLE, useFactory: () => SqliteKeyStore.open(config.dataDir, config.sync) },
        {
          provide: TOKEN_CRYPTO,
          inject: [KEY_STORE_HANDLE, LOGGER],
          useFactory: (keys: SqliteKeyStore, logger: JsonLogger) => {
            const master = loadMasterKey({ configured: config.masterKey, dataDir: config.dataDir, allowGenerated: config.eventStore === 'embedded' });
            if (master.source === 'file') {
              logger.warn(
                master.generated
                  ? 'VAULT_MASTER_KEY is not set: generated a master key into the data dir; token data is only as safe as that file. Set VAULT_MASTER_KEY in production.'
                  : 'VAULT_MASTER_KEY is not set: using the master key generated into the data dir. Set VAULT_MASTER_KEY in production.',
                { file: master.file },
              );
            }
            return new AesGcmTokenCrypto(master.key, keys, loadPreviousMasterKey(config.masterKeyPrevious));
          },
        },
        { provide: TENANT_KEYS, useExisting: TOKEN_CRYPTO },
        { provide: EXPRESSION_ENGINE, useFactory: () => new LiquidExpressionEngine({ renderLimitMs: config.expressionBudgetMs }) },
        {
          // Destroys the data key of every deleted token, from its own checkpoint in the key store (crypto-shredding).
          // The key of every deleted reactor's configuration and private formula's code too, and of every deleted tenant.
          provide: KEY_SHREDDER,
          // The store as written: the shredder reads only deletions, so it opens no token's sealed index.
          inject: [RAW_EVENT_STORE, KEY_STORE_HANDLE, LOGGER],
          useFactory: async (events: EventStore, keys: SqliteKeyStore, logger: JsonLogger) => {
            if (!options.shredder) return null;
            const shredder = new Projector(
              events,
              new KeyShreddingStore(keys),
              new ProjectionSet([keyShreddingProjection]),
              {
                info: (message, fields) => logger.info(`key shredder: ${message}`, fields),
                error: (message, fields) => logger.error(`key shredder: ${message}`, fields),
              },
              systemClock,
              [TOKEN_STREAM_PREFIX, REACTOR_STREAM_PREFIX, FORMULA_STREAM_PREFIX, PROXY_STREAM_PREFIX, WEBHOOK_STREAM_PREFIX, TENANT_STREAM_PREFIX],
            );
            await shredder.start();
            return shredder;
          },
        },
        {
          // Access records, for the audit log: many requests' records in one append to the tenants' audit streams.
          provide: ACCESS_LOG,
          inject: [EVENT_STORE, LOGGER],
          useFactory: (events: EventStore, logger: JsonLogger): AccessLog =>
            config.auditAccessRecords
              ? new GroupCommitAccessLog(events, {
                  ...DEFAULT_GROUP_COMMIT,
                  onAppendFailed: (error, records) =>
                    logger.error('access records not written; their requests answer 503', { error: (error as Error)?.name ?? typeof error, records }),
                })
              : disabledAccessLog,
        },
        {
          // Webhook deliveries, where the projector runs (the lease holder, or the projector app), from the raw log: a
          // delivery needs no token's sealed index opened.
          provide: WEBHOOK_DELIVERY,
          inject: [RAW_EVENT_STORE, READ_MODELS, TOKEN_CRYPTO, PROJECTOR, PROJECTION_WAITER, LOGGER],
          useFactory: (events: EventStore, readModels: ReadModels, crypto: TokenCrypto, projector: Projector | null, waiter: ProjectionWaiter, logger: JsonLogger) => {
            if (projector === null) return null;
            const hub = new WebhookDeliveryHub(logger);
            // Answers are not read past 64 KiB: a receiver's body says nothing the status does not.
            const egress = new HttpProxyEgress({ timeoutMs: config.webhookTimeoutMs, maxResponseBytes: 64 * 1024 });
            const dispatcher = new WebhookDispatcher(
              {
                events,
                // The runners' outcomes share transactions on the embedded log (its appendMany is all or nothing).
                appender: config.eventStore === 'embedded' ? new GroupCommitAppender(events) : undefined,
                egress,
                crypto,
                webhookCrypto,
                clock: systemClock,
                observer: hub,
              },
              { hosts: AllowedHosts.parse(config.webhookAllowedHosts), retryWindowMs: config.webhookRetryWindowMs },
              readModels.webhooks,
              waiter,
            );
            const delivery = new WebhookDelivery(dispatcher, hub, projector, () => egress.close());
            delivery.start();
            return delivery;
          },
        },
        // Proxied requests, over keep-alive connections of their own, under VAULT_PROXY_TIMEOUT_MS and the 1 MiB answer cap.
        { provide: PROXY_EGRESS, useFactory: () => new HttpProxyEgress({ timeoutMs: config.proxyTimeoutMs, maxResponseBytes: 1024 * 1024 }) },
        {
          provide: USE_CASE_PORTS,
          inject: [
            CommandRunner,
            EVENT_STORE,
            READ_MODELS,
            TOKEN_CRYPTO,
            EXPRESSION_ENGINE,
            FORMULA_CODE_CHECKER,
            KEY_SHREDDER,
            PROJECTION_WAITER,
            REACTOR_RUNTIME,
            ACCESS_LOG,
            TENANT_KEYS,
            PROXY_EGRESS,
          ],
          useFactory: (
            runner: CommandRunner,
            events: EventStore,
            readModels: ReadModels,
            crypto: TokenCrypto,
            engine: ExpressionEngine,
            checker: FormulaCodeChecker,
            shredder: Projector | null,
            waiter: ProjectionWaiter,
            reactorRuntime: ReactorRuntime,
            accessLog: AccessLog,
            tenantKeys: TenantKeys,
            proxyEgress: ProxyEgress,
          ): UseCasePorts => ({
            runner,
            events,
            readModels,
            crypto,
            engine,
            checker,
            // Without a shredder in this process (CLI, projector), none of its commands deletes tokens.
            shredding: { waiter: shredder ?? { waitFor: async () => true }, timeoutMs: config.writeWaitMs },
            ids: uuidGenerator,
            keys: apiKeys,
            clock: systemClock,
            waiter,
            writeWaitMs: config.writeWaitMs,
            reactorRuntime,
            accessLog,
            tenantKeys,
            proxyEgress,
            proxyHosts: AllowedHosts.parse(config.proxyAllowedHosts),
            webhookHosts: AllowedHosts.parse(config.webhookAllowedHosts),
            webhookCrypto,
            webhooksPerTenant: config.webhooksPerTenant,
          }),
        },
        ...useCaseProviders,
        VaultBus,
        {
          provide: Authenticator,
          inject: [READ_MODELS, TENANT_KEYS],
          useFactory: (rm: ReadModels, tenantKeys: TenantKeys) => new Authenticator(rm.applications, rm.tenants, apiKeys, systemClock, tenantKeys),
        },
        Shutdown,
      ],
      exports: [
        VAULT_CONFIG,
        PROJECTOR_MODE,
        LOGGER,
        EVENT_STORE,
        READ_MODELS,
        PROJECTOR,
        KEY_SHREDDER,
        PROJECTION_WAITER,
        CommandRunner,
        VaultBus,
        TOKEN_CRYPTO,
        Authenticator,
        ACCESS_LOG,
        TENANT_KEYS,
        WEBHOOK_DELIVERY,
      ],
    };
  }
}
