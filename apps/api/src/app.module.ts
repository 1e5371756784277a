import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { VaultConfig, VaultCoreModule } from '@vault/nest';
import { ApplicationsController } from './applications/applications.controller';
import { HealthController } from './health/health.controller';
import { MetricsModule } from './metrics/metrics.module';
import { AccessGuard } from './http/access.guard';
import { ProblemFilter } from './http/problem.filter';
import { ProjectionPendingInterceptor } from './http/projection-pending.interceptor';
import { vaultValidationPipe } from './http/validation.pipe';
import { PermissionsController } from './permissions/permissions.controller';
import { ExpirySweeper } from './tokens/expiry-sweeper';
import { TokensController } from './tokens/tokens.controller';
import { TokenizeController } from './tokens/tokenize.controller';
import { ReactorFormulasController } from './reactor-formulas/reactor-formulas.controller';
import { ReactorsController } from './reactors/reactors.controller';
import { LogsController } from './logs/logs.controller';
import { AuditRetentionSweeper } from './logs/audit-retention-sweeper';
import { TenantsController } from './tenants/tenants.controller';
import { CallerLivenessInterceptor } from './http/caller-liveness.interceptor';

export function appModule(config: VaultConfig) {
  @Module({
    imports: [VaultCoreModule.forRoot({ projector: config.projector, config, shredder: true }), MetricsModule],
    controllers: [PermissionsController, ApplicationsController, ReactorFormulasController, TokensController, TokenizeController, HealthController, ReactorsController, LogsController, TenantsController],
    providers: [
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
