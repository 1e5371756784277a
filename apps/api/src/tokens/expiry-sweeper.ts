// Deletes expired tokens and shreds their data keys. Reads and searches already hide a token from its expires_at on;
// the sweep makes the deletion durable and the data unrecoverable.
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ExpireTokenCommand } from '@vault/application';
import { DomainError } from '@vault/domain';
import { JsonLogger, LOGGER, READ_MODELS, ReadModels, VAULT_CONFIG, VaultBus, VaultConfig } from '@vault/nest';

const BATCH = 200;

@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    @Inject(VAULT_CONFIG) private readonly config: VaultConfig,
    @Inject(READ_MODELS) private readonly readModels: ReadModels,
    @Inject(LOGGER) private readonly logger: JsonLogger,
    private readonly bus: VaultBus,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.expirySweepMs === 0) return;
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = null));
    }, this.config.expirySweepMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass: every token expired by now, in batches. Returns how many were deleted. */
  async sweep(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const now = new Date();
      const expired = await this.readModels.tokens.expired(now.getTime(), BATCH);
      if (expired.length === 0) break;
      for (const { id, tenant_id } of expired) {
        try {
          await this.bus.execute(new ExpireTokenCommand(tenant_id, id, now));
          deleted++;
        } catch (error) {
          // Another instance got there first, or the token changed: the next pass sees the current state.
          if (!(error instanceof DomainError)) this.logger.error('expiry sweep failed for a token', { token_id: id, error: String(error) });
        }
      }
      if (expired.length < BATCH) break;
    }
    if (deleted > 0) this.logger.info('expired tokens deleted', { count: deleted });
    return deleted;
  }
}
