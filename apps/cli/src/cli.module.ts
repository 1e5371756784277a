import { Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { loadConfig, VaultCoreModule } from '@vault/nest';
import { CreateTenantHandler } from './commands/tenant.commands';

/** The CLI appends events but runs no projector: a running API (or apps/projector) applies them within a second. */
@Module({
  imports: [VaultCoreModule.forRoot({ projector: 'none', config: loadConfig(), logTo: 'stderr' }), CqrsModule.forRoot()],
  providers: [CreateTenantHandler],
})
export class CliModule {}
