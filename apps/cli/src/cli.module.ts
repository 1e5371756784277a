import { Module } from '@nestjs/common';
import { loadConfig, VaultCoreModule } from '@vault/nest';

/**
 * The CLI appends events but runs no projector: a running API (or apps/projector) applies them within a second. Its
 * commands go through the same bus and handlers as the API's (VaultCoreModule registers them).
 */
@Module({
  imports: [VaultCoreModule.forRoot({ projector: 'none', config: loadConfig(), logTo: 'stderr' })],
})
export class CliModule {}
