// VAULT_AUDIT_RETENTION_DAYS: drops access records older than the retention from the audit read model, at start-up and
// then every hour. Entries of writes stay. The AccessRecorded events stay in the event log: a rebuild of the read model
// replays them, and the next sweep drops the expired ones again.
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { JsonLogger, LOGGER, READ_MODELS, ReadModels, VAULT_CONFIG, VaultConfig } from '@vault/nest';

const SWEEP_EVERY_MS = 60 * 60 * 1000;
const DAY_MS = 86_400_000;

@Injectable()
export class AuditRetentionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    @Inject(VAULT_CONFIG) private readonly config: VaultConfig,
    @Inject(READ_MODELS) private readonly readModels: ReadModels,
    @Inject(LOGGER) private readonly logger: JsonLogger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.auditRetentionDays === null) return;
    const tick = () => {
      this.running ??= this.sweep()
        .catch((error: unknown) => {
          // The read model is unreachable or busy: the next tick tries again.
          this.logger.error('audit retention sweep failed', { error: String(error) });
          return 0;
        })
        .finally(() => (this.running = null));
    };
    tick();
    this.timer = setInterval(tick, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One pass: drops the access records created before `now` minus the retention. Returns how many went. */
  async sweep(now = new Date()): Promise<number> {
    const days = this.config.auditRetentionDays;
    if (days === null) return 0;
    const dropped = await this.readModels.audit.dropAccessRecordsBefore(new Date(now.getTime() - days * DAY_MS));
    if (dropped > 0) this.logger.info('expired access records dropped from the audit log', { count: dropped, retention_days: days });
    return dropped;
  }
}
