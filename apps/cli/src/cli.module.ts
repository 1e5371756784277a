import { DynamicModule, Module } from '@nestjs/common';
import { VaultConfig, VaultCoreModule } from '@vault/nest';

/**
 * The CLI appends events but runs no projector: a running API (or apps/projector) applies them within a second. Its
 * commands go through the same bus and handlers as the API's (VaultCoreModule registers them). The configuration is
 * passed in when a command runs, so `--help` needs none and a bad environment is reported as a usage error.
 */
@Module({})
export class CliModule {
  static forRoot(config: VaultConfig): DynamicModule {
    return { module: CliModule, imports: [VaultCoreModule.forRoot({ projector: 'none', config, logTo: 'stderr' })] };
  }
}
