import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { VaultConfig, VaultCoreModule } from '@vault/nest';
import { ApplicationsController } from './applications/applications.controller';
import { ConsoleModule } from './console/console.module';
import { HealthController } from './health/health.controller';
import { MetricsModule } from './metrics/metrics.module';
import { AccessGuard } from './http/access.guard';
import { ProblemFilter } from './http/problem.filter';
import { ProjectionPendingInterceptor } from './http/projection-pending.interceptor';
import { vaultValidationPipe } from './http/validation.pipe';
import { PermissionsController } from './permissions/permissions.controller';
import { ExpirySweeper } from './tokens/expiry-sweeper';
import { TokensController } from './tokens/tokens.controller';
import { TokenizeController } from './tokenize/tokenize.controller';
import { DetokenizeController } from './detokenize/detokenize.controller';
import { ReactorFormulasController } from './reactor-formulas/reactor-formulas.controller';
import { ReactorsController } from './reactors/reactors.controller';
import { AuditLogController } from './audit/audit-log.controller';
import { AuditRetentionSweeper } from './audit/audit-retention-sweeper';
import { TenantsController } from './tenants/tenants.controller';
import { ProxiesController } from './proxies/proxies.controller';
import { ProxyInvocationController } from './proxies/proxy-invocation.controller';
import { ReportsController } from './reports/reports.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { CallerLivenessInterceptor } from './http/caller-liveness.interceptor';
import { API_KEY_RATE_LIMITER, RateLimiter } from './http/rate-limiter';

export function appModule(config: VaultConfig) {
  @Module({
    imports: [VaultCoreModule.forRoot({ projector: config.projector, config, shredder: true }), MetricsModule, ConsoleModule],
    // Express tries routes in the order of this list and of each controller's methods: a route that a parametric one
    // (`:id`) would also match must come before it.
    controllers: [
      PermissionsController,
      ApplicationsController,
      ReactorFormulasController,
      TokensController,
      TokenizeController,
      DetokenizeController,
      HealthController,
      ReactorsController,
      AuditLogController,
      TenantsController,
      ReportsController,
      ProxiesController,
      ProxyInvocationController,
      WebhooksController,
    ],
    providers: [
      { provide: API_KEY_RATE_LIMITER, useFactory: () => new RateLimiter(config.rateLimitPerSecond) },
      ExpirySweeper,
      AuditRetentionSweeper,
      { provide: APP_GUARD, useClass: AccessGuard },
      { provide: APP_FILTER, useClass: ProblemFilter },
      { provide: APP_PIPE, useFactory: vaultValidationPipe },
      { provide: APP_INTERCEPTOR, useClass: ProjectionPendingInterceptor },
      { provide: APP_INTERCEPTOR, useClass: CallerLivenessInterceptor },
    ],
  })
  class AppModule {}
  return AppModule;
}
