// Liveness (the process answers) and readiness (the stores answer, the projector has caught up once, and the read
// models lag the log by at most READY_LIMITS: events counted by the event store, seconds by the oldest pending event).
import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { EventStore, encodePosition, measureLag, ProjectionLag, Projector, readinessOf } from '@vault/application';
import { EVENT_STORE, PROJECTOR, READ_MODELS, ReadModels } from '@vault/nest';
import { Public } from '../http/access.decorators';
import { DEGRADED_EXAMPLE, Health, HEALTH_EXAMPLE, LIVE_EXAMPLE, Liveness, NOT_READY_EXAMPLE, Readiness, READY_EXAMPLE } from './health.dto';

const NOT_READY = 'Not ready: a store did not answer, the projector has not caught up once or has stopped, or the read models lag.';

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(
    @Inject(EVENT_STORE) private readonly events: EventStore,
    @Inject(READ_MODELS) private readonly readModels: ReadModels,
    @Inject(PROJECTOR) private readonly projector: Projector | null,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'getHealth', summary: 'Liveness and readiness, with the projection lag' })
  @ApiOkResponse({ description: 'Ready', type: Health, example: HEALTH_EXAMPLE })
  @ApiServiceUnavailableResponse({ description: NOT_READY, type: Health, example: DEGRADED_EXAMPLE })
  @Public()
  async health(@Res({ passthrough: true }) res: Response) {
    const readiness = await this.readiness();
    if (!readiness.ready) res.status(503);
    return { status: readiness.ready ? 'ok' : 'degraded', live: true, ...readiness };
  }

  @Get('live')
  @HttpCode(200)
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers' })
  @ApiOkResponse({ description: 'Live', type: Liveness, example: LIVE_EXAMPLE })
  @Public()
  live() {
    return { status: 'ok', live: true };
  }

  @Get('ready')
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: the vault can answer reads with fresh data' })
  @ApiOkResponse({ description: 'Ready', type: Readiness, example: READY_EXAMPLE })
  @ApiServiceUnavailableResponse({ description: NOT_READY, type: Readiness, example: NOT_READY_EXAMPLE })
  @Public()
  async ready(@Res({ passthrough: true }) res: Response) {
    const readiness = await this.readiness();
    if (!readiness.ready) res.status(503);
    return readiness;
  }

  private async readiness() {
    try {
      const projection = this.projector ? await this.inline(this.projector) : await this.external();
      const verdict = readinessOf(projection.input);
      return { ...verdict, projection: projection.report };
    } catch {
      return { ready: false, error: 'a store did not answer' };
    }
  }

  /** This process projects: its projector knows whether it caught up once, and where it is. */
  private async inline(projector: Projector) {
    const status = await projector.status();
    const { lag } = status;
    return {
      input: { caughtUpOnce: status.caughtUp, failure: status.failure, lag },
      report: {
        mode: 'inline' as const,
        checkpoint: status.checkpoint,
        head: status.head,
        caught_up: status.caughtUp,
        ...lagReport(lag),
        ...(status.failure ? { failure: status.failure } : {}),
      },
    };
  }

  /** Another process projects (apps/projector): the read model's checkpoint is all there is to go by. */
  private async external() {
    const [head, checkpoint] = await Promise.all([this.events.headPosition(), this.readModels.projectionStore.checkpoint()]);
    const lag = await measureLag(this.events, checkpoint, new Date());
    return {
      input: { caughtUpOnce: null, failure: null, lag },
      report: {
        mode: 'external' as const,
        checkpoint: checkpoint && encodePosition(checkpoint),
        head: head && encodePosition(head),
        caught_up: lag.events === 0,
        ...lagReport(lag),
      },
    };
  }
}

/** `lag_events` is counted up to a cap; `lag_events_capped` says there are more. */
const lagReport = (lag: ProjectionLag) => ({
  lag_events: lag.events,
  lag_events_capped: lag.eventsCapped,
  lag_seconds: lag.seconds,
});
