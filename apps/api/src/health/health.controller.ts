// Liveness (the process answers) and readiness (the stores answer and the projector is caught up).
import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { EVENT_STORE, EventStore, encodePosition, Projector } from '@vault/application';
import { PROJECTOR, READ_MODELS, ReadModels } from '@vault/nest';
import { Public } from '../http/access.decorators';

/** Ready while the read models are at most this many events behind the log. */
const MAX_READY_LAG = 1000;

@Controller('health')
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModels,
    @Inject(PROJECTOR) private readonly projector: Projector | null,
  ) {}

  @Get()
  @Public()
  async health(@Res({ passthrough: true }) res: Response) {
    const readiness = await this.readiness();
    if (!readiness.ready) res.status(503);
    return { status: readiness.ready ? 'ok' : 'degraded', live: true, ...readiness };
  }

  @Get('live')
  @Public()
  @HttpCode(200)
  live() {
    return { status: 'ok', live: true };
  }

  @Get('ready')
  @Public()
  async ready(@Res({ passthrough: true }) res: Response) {
    const readiness = await this.readiness();
    if (!readiness.ready) res.status(503);
    return readiness;
  }

  private async readiness() {
    try {
      const [head, checkpoint] = await Promise.all([this.events.headPosition(), this.readModels.projectionStore.checkpoint()]);
      const lag = head === null ? 0 : Math.max(0, Number(head.commit - (checkpoint?.commit ?? 0n)));
      const status = this.projector ? await this.projector.status() : null;
      const ready = lag <= MAX_READY_LAG && (status === null || status.caughtUp);
      return {
        ready,
        projection: {
          mode: this.projector ? 'inline' : 'external',
          checkpoint: checkpoint && encodePosition(checkpoint),
          head: head && encodePosition(head),
          lag_events: lag,
          caught_up: status?.caughtUp ?? lag === 0,
        },
      };
    } catch (error) {
      return { ready: false, error: 'a store did not answer' };
    }
  }
}
