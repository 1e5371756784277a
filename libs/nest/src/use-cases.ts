// Registers the use cases of libs/application (framework-free handler classes) with @nestjs/cqrs, and the one bus
// every app dispatches through: the API's controllers, the CLI and the start-up bootstrap run the same handlers.
import { Inject, Injectable, Provider } from '@nestjs/common';
import { CommandBus, CommandHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import {
  AccessLog,
  ApiKeys,
  BootstrapTenantCommand,
  BootstrapTenantHandler,
  Clock,
  CommandRunner,
  CreateApplicationCommand,
  CreateApplicationHandler,
  CreateReactorCommand,
  CreateReactorHandler,
  CreateReactorFormulaCommand,
  CreateReactorFormulaHandler,
  CreateTenantCommand,
  DeleteTenantCommand,
  DeleteTenantHandler,
  GetOwnTenantHandler,
  GetOwnTenantQuery,
  RenameOwnTenantCommand,
  RenameOwnTenantHandler,
  CreateTenantHandler,
  CreateTokenCommand,
  CreateTokenHandler,
  DeleteApplicationCommand,
  DeleteApplicationHandler,
  DeleteReactorCommand,
  DeleteReactorHandler,
  DeleteReactorFormulaCommand,
  DeleteReactorFormulaHandler,
  DeleteTokenCommand,
  DeleteTokenHandler,
  DetokenizeHandler,
  Detokenizer,
  DetokenizeQuery,
  EventStore,
  ExpireTokenCommand,
  ExpireTokenHandler,
  GetApplicationHandler,
  GetApplicationQuery,
  FormulaReactors,
  GetReactorFormulaHandler,
  GetReactorFormulaQuery,
  GetReactorHandler,
  GetReactorQuery,
  GetTokenHandler,
  GetTokenQuery,
  IdGenerator,
  ImportOfficialFormulaCommand,
  ImportOfficialFormulaHandler,
  KeyShredding,
  ListApplicationsHandler,
  ListApplicationsQuery,
  ListReactorFormulasHandler,
  ListReactorFormulasQuery,
  ListReactorsHandler,
  ListReactorsQuery,
  PatchReactorCommand,
  PatchReactorHandler,
  ReactCommand,
  ReactHandler,
  ProjectionWaiter,
  RegenerateApplicationKeyCommand,
  RegenerateApplicationKeyHandler,
  ResultOf,
  SearchTokensHandler,
  SearchTokensQuery,
  TokenizeCommand,
  TokenizeHandler,
  TokenizeRequests,
  UpdateApplicationCommand,
  UpdateApplicationHandler,
  UpdateReactorCommand,
  UpdateReactorHandler,
  UpdateReactorFormulaCommand,
  UpdateReactorFormulaHandler,
  UpdateTokenCommand,
  UpdateTokenHandler,
  UseCaseHandler,
  VaultCommand,
  VaultQuery,
  ListAuditLogHandler,
  ListAuditLogQuery,
  GetUsageReportHandler,
  GetUsageReportQuery,
  CreateProxyCommand,
  CreateProxyHandler,
  UpdateProxyCommand,
  UpdateProxyHandler,
  PatchProxyCommand,
  PatchProxyHandler,
  DeleteProxyCommand,
  DeleteProxyHandler,
  GetProxyQuery,
  GetProxyHandler,
  ListProxiesQuery,
  ListProxiesHandler,
  InvokeProxyCommand,
  InvokeProxyHandler,
  ProxyTargets,
  CreateWebhookCommand,
  CreateWebhookHandler,
  UpdateWebhookCommand,
  UpdateWebhookHandler,
  DeleteWebhookCommand,
  DeleteWebhookHandler,
  GetWebhookQuery,
  GetWebhookHandler,
  ListWebhooksQuery,
  ListWebhooksHandler,
  ListDeliveriesQuery,
  ListDeliveriesHandler,
} from '@vault/application';
import type { DestinationHosts, ExpressionEngine } from '@vault/domain';
import type { FormulaCodeChecker, ProxyEgress, ReactorRuntime, TenantKeys, TokenCrypto, WebhookCrypto } from '@vault/application';
import { USE_CASE_PORTS } from './di-tokens';
import type { ReadModels } from './read-models';

/** What the handlers are built from: the ports, as the core module has opened them. */
export interface UseCasePorts {
  runner: CommandRunner;
  events: EventStore;
  readModels: ReadModels;
  crypto: TokenCrypto;
  engine: ExpressionEngine;
  checker: FormulaCodeChecker;
  shredding: KeyShredding;
  ids: IdGenerator;
  keys: ApiKeys;
  clock: Clock;
  /** What writes wait on for read-your-writes (the projector): the formula-change check waits on it too. */
  waiter: ProjectionWaiter;
  writeWaitMs: number;
  /** Runs reactor code (POST /reactors/{id}/react). */
  reactorRuntime: ReactorRuntime;
  /** Where reads that show plaintext, token uses and reactor invocations are recorded before they answer. */
  accessLog: AccessLog;
  /** Destroyed by a tenant's deletion. */
  tenantKeys: TenantKeys;
  /** Where proxies may send (VAULT_PROXY_ALLOWED_HOSTS), and how. */
  proxyHosts: DestinationHosts;
  proxyEgress: ProxyEgress;
  /** Where webhooks may deliver (VAULT_WEBHOOK_ALLOWED_HOSTS), and how their secrets are made. */
  webhookHosts: DestinationHosts;
  webhookCrypto: WebhookCrypto;
  webhooksPerTenant: number;
}

type MessageClass = abstract new (...args: never[]) => VaultCommand<unknown> | VaultQuery<unknown>;
type HandlerClass<H> = new (...args: never[]) => H;

/** One use case: `message` (a command or query class) is handled by `handler`, built by `build` from the ports. */
function useCase<M extends VaultCommand<unknown> | VaultQuery<unknown>, H extends UseCaseHandler<M>>(
  message: abstract new (...args: never[]) => M,
  handler: HandlerClass<H>,
  build: (ports: UseCasePorts) => H,
): Provider {
  const isQuery = (message as MessageClass).prototype instanceof VaultQuery;
  // The decorators are plain functions: applied here, they keep the handler classes free of the framework.
  (isQuery ? QueryHandler(message as never) : CommandHandler(message as never))(handler);
  return { provide: handler, inject: [USE_CASE_PORTS], useFactory: build };
}

export const useCaseProviders: Provider[] = [
  // Tenants (the operator's CLI and the start-up bootstrap)
  useCase(CreateTenantCommand, CreateTenantHandler, (p) => new CreateTenantHandler(p.runner, p.ids, p.keys, p.clock)),
  useCase(GetOwnTenantQuery, GetOwnTenantHandler, (p) => new GetOwnTenantHandler(p.readModels.tenants)),
  useCase(RenameOwnTenantCommand, RenameOwnTenantHandler, (p) => new RenameOwnTenantHandler(p.runner)),
  useCase(DeleteTenantCommand, DeleteTenantHandler, (p) => new DeleteTenantHandler(p.runner, p.tenantKeys, p.clock)),
  useCase(
    BootstrapTenantCommand,
    BootstrapTenantHandler,
    (p) => new BootstrapTenantHandler(p.runner, p.events, p.readModels.tenants, p.keys, p.clock),
  ),
  // Applications
  useCase(CreateApplicationCommand, CreateApplicationHandler, (p) => new CreateApplicationHandler(p.runner, p.ids, p.keys)),
  useCase(UpdateApplicationCommand, UpdateApplicationHandler, (p) => new UpdateApplicationHandler(p.runner)),
  useCase(RegenerateApplicationKeyCommand, RegenerateApplicationKeyHandler, (p) => new RegenerateApplicationKeyHandler(p.runner, p.keys)),
  useCase(DeleteApplicationCommand, DeleteApplicationHandler, (p) => new DeleteApplicationHandler(p.runner)),
  useCase(GetApplicationQuery, GetApplicationHandler, (p) => new GetApplicationHandler(p.readModels.applications)),
  useCase(ListApplicationsQuery, ListApplicationsHandler, (p) => new ListApplicationsHandler(p.readModels.applications)),
  // Reactor formulas
  useCase(CreateReactorFormulaCommand, CreateReactorFormulaHandler, (p) => new CreateReactorFormulaHandler(p.runner, p.checker, p.ids)),
  useCase(UpdateReactorFormulaCommand, UpdateReactorFormulaHandler, (p) => new UpdateReactorFormulaHandler(p.runner, p.checker, formulaReactors(p))),
  useCase(DeleteReactorFormulaCommand, DeleteReactorFormulaHandler, (p) => new DeleteReactorFormulaHandler(p.runner, formulaReactors(p), p.shredding)),
  useCase(
    ImportOfficialFormulaCommand,
    ImportOfficialFormulaHandler,
    (p) => new ImportOfficialFormulaHandler(p.runner, p.checker, p.clock, formulaReactors(p)),
  ),
  useCase(GetReactorFormulaQuery, GetReactorFormulaHandler, (p) => new GetReactorFormulaHandler(p.readModels.formulas)),
  useCase(ListReactorFormulasQuery, ListReactorFormulasHandler, (p) => new ListReactorFormulasHandler(p.readModels.formulas)),
  // Tokens
  useCase(CreateTokenCommand, CreateTokenHandler, (p) => new CreateTokenHandler(p.runner, p.readModels.tokens, p.crypto, p.engine, p.ids, p.accessLog)),
  useCase(UpdateTokenCommand, UpdateTokenHandler, (p) => new UpdateTokenHandler(p.runner, p.crypto, p.engine, p.accessLog)),
  useCase(DeleteTokenCommand, DeleteTokenHandler, (p) => new DeleteTokenHandler(p.runner, p.shredding)),
  useCase(ExpireTokenCommand, ExpireTokenHandler, (p) => new ExpireTokenHandler(p.runner, p.shredding)),
  useCase(GetTokenQuery, GetTokenHandler, (p) => new GetTokenHandler(p.readModels.tokens, p.crypto, p.accessLog)),
  useCase(SearchTokensQuery, SearchTokensHandler, (p) => new SearchTokensHandler(p.readModels.tokens, p.crypto, p.accessLog)),
  // Tokenize and detokenize
  useCase(TokenizeCommand, TokenizeHandler, (p) => new TokenizeHandler(tokenizeRequests(p))),
  useCase(DetokenizeQuery, DetokenizeHandler, (p) => new DetokenizeHandler(detokenizer(p), p.accessLog)),
  // Reactors
  useCase(CreateReactorCommand, CreateReactorHandler, (p) => new CreateReactorHandler(p.runner, p.events, p.crypto, p.ids)),
  useCase(UpdateReactorCommand, UpdateReactorHandler, (p) => new UpdateReactorHandler(p.runner, p.events, p.crypto)),
  useCase(PatchReactorCommand, PatchReactorHandler, (p) => new PatchReactorHandler(p.runner, p.events, p.crypto)),
  useCase(DeleteReactorCommand, DeleteReactorHandler, (p) => new DeleteReactorHandler(p.runner, p.shredding)),
  useCase(GetReactorQuery, GetReactorHandler, (p) => new GetReactorHandler(p.readModels.reactors, p.readModels.formulas, p.crypto)),
  useCase(ListReactorsQuery, ListReactorsHandler, (p) => new ListReactorsHandler(p.readModels.reactors, p.readModels.formulas, p.crypto)),
  useCase(
    ReactCommand,
    ReactHandler,
    (p) => new ReactHandler(p.events, p.readModels.applications, p.crypto, detokenizer(p), tokenizeRequests(p), p.reactorRuntime, p.accessLog),
  ),
  // Proxies
  useCase(CreateProxyCommand, CreateProxyHandler, (p) => new CreateProxyHandler(p.runner, p.events, p.crypto, p.checker, p.ids, p.keys, p.proxyHosts)),
  useCase(UpdateProxyCommand, UpdateProxyHandler, (p) => new UpdateProxyHandler(p.runner, p.events, p.crypto, p.checker, p.proxyHosts)),
  useCase(PatchProxyCommand, PatchProxyHandler, (p) => new PatchProxyHandler(p.runner, p.events, p.crypto, p.checker, p.proxyHosts)),
  useCase(DeleteProxyCommand, DeleteProxyHandler, (p) => new DeleteProxyHandler(p.runner, p.shredding)),
  useCase(GetProxyQuery, GetProxyHandler, (p) => new GetProxyHandler(p.readModels.proxies, p.crypto)),
  useCase(ListProxiesQuery, ListProxiesHandler, (p) => new ListProxiesHandler(p.readModels.proxies, p.crypto)),
  useCase(
    InvokeProxyCommand,
    InvokeProxyHandler,
    (p) =>
      new InvokeProxyHandler(
        new ProxyTargets(p.readModels.proxies, p.crypto, p.keys, p.proxyHosts, p.tenantKeys),
        p.readModels.applications,
        detokenizer(p),
        tokenizeRequests(p),
        p.reactorRuntime,
        p.engine,
        p.proxyEgress,
        p.accessLog,
        p.clock,
      ),
  ),
  // Webhooks
  useCase(CreateWebhookCommand, CreateWebhookHandler, (p) => new CreateWebhookHandler(p.runner, p.crypto, p.webhookCrypto, p.ids, p.webhookHosts, p.readModels.webhooks, p.webhooksPerTenant)),
  useCase(UpdateWebhookCommand, UpdateWebhookHandler, (p) => new UpdateWebhookHandler(p.runner, p.webhookHosts)),
  useCase(DeleteWebhookCommand, DeleteWebhookHandler, (p) => new DeleteWebhookHandler(p.runner, p.shredding)),
  useCase(GetWebhookQuery, GetWebhookHandler, (p) => new GetWebhookHandler(p.readModels.webhooks)),
  useCase(ListWebhooksQuery, ListWebhooksHandler, (p) => new ListWebhooksHandler(p.readModels.webhooks)),
  useCase(ListDeliveriesQuery, ListDeliveriesHandler, (p) => new ListDeliveriesHandler(p.readModels.webhooks, p.readModels.deliveries)),
  // Audit log
  useCase(ListAuditLogQuery, ListAuditLogHandler, (p) => new ListAuditLogHandler(p.readModels.audit)),
  // Reports
  useCase(GetUsageReportQuery, GetUsageReportHandler, (p) => new GetUsageReportHandler(p.readModels.usage)),
];

// The shared steps more than one handler is built from: each a module of its feature, never a handler.

/** The reactors of a formula as its update, delete and import check them: once the read models have caught up. */
function formulaReactors(p: UseCasePorts): FormulaReactors {
  return new FormulaReactors(p.events, p.waiter, p.readModels.reactors, p.writeWaitMs);
}

/** POST /tokenize's tokenization, which a reactor's `tokenize` goes through too. */
function tokenizeRequests(p: UseCasePorts): TokenizeRequests {
  return new TokenizeRequests(p.runner, p.readModels.tokens, p.crypto, p.engine, p.ids, p.accessLog);
}

/** POST /detokenize's detokenization, which a reactor's args go through too (for token:use). */
function detokenizer(p: UseCasePorts): Detokenizer {
  return new Detokenizer(p.readModels.tokens, p.crypto, p.engine);
}

/** The one way into the use cases: a command or query object in, its handler's typed answer out. */
@Injectable()
export class VaultBus {
  constructor(
    @Inject(CommandBus) private readonly commands: CommandBus,
    @Inject(QueryBus) private readonly queries: QueryBus,
  ) {}

  execute<C extends VaultCommand<unknown>>(command: C): Promise<ResultOf<C>> {
    return this.commands.execute(command);
  }

  ask<Q extends VaultQuery<unknown>>(query: Q): Promise<ResultOf<Q>> {
    return this.queries.execute(query);
  }
}
