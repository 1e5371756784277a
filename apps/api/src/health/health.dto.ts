// What GET /health, /health/live and /health/ready answer (health.controller.ts builds them).
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { READY_LIMITS } from '@vault/application';

@ApiSchema({ name: 'ProjectionReport', description: 'Where the read models stand against the event log.' })
export class ProjectionReport {
  @ApiProperty({ enum: ['inline', 'external'], description: 'inline: this process projects; external: another process does (apps/projector)' })
  mode!: 'inline' | 'external';

  @ApiProperty({ type: 'string', nullable: true, description: 'The log position the read models have applied', examples: ['1042:1042'] })
  checkpoint!: string | null;

  @ApiProperty({ type: 'string', nullable: true, description: 'The log position of the last event', examples: ['1045:1045'] })
  head!: string | null;

  @ApiProperty({ description: 'inline: whether the projector has caught up with the log once; external: whether nothing waits now' })
  caught_up!: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, description: `Events not applied yet, counted up to ${READY_LIMITS.maxEvents.toLocaleString('en-US')}` })
  lag_events!: number;

  @ApiProperty({ description: 'More than lag_events are pending' })
  lag_events_capped!: boolean;

  @ApiProperty({ minimum: 0, description: 'Age of the oldest event not applied yet, in seconds' })
  lag_seconds!: number;

  @ApiPropertyOptional({ description: 'Why the projector stopped for good (inline mode)' })
  failure?: string;
}

@ApiSchema({
  name: 'Readiness',
  description: `Ready: the stores answer, the projector of this process has caught up with the log once (inline mode), and at most ${READY_LIMITS.maxEvents.toLocaleString('en-US')} events, none older than ${READY_LIMITS.maxSeconds} s, wait to be applied to the read models.`,
})
export class Readiness {
  @ApiProperty()
  ready!: boolean;

  @ApiPropertyOptional({ description: 'Why not ready', examples: [`more than ${READY_LIMITS.maxEvents} events wait to be applied`] })
  reason?: string;

  @ApiPropertyOptional({ description: 'Set, instead of projection, when a store did not answer', examples: ['a store did not answer'] })
  error?: string;

  @ApiPropertyOptional({ type: ProjectionReport })
  projection?: ProjectionReport;
}

@ApiSchema({ name: 'Liveness', description: 'The process answers.' })
export class Liveness {
  @ApiProperty({ enum: ['ok'] })
  status!: 'ok';

  @ApiProperty({ enum: [true] })
  live!: true;
}

@ApiSchema({ name: 'Health', description: 'Liveness and readiness in one answer.' })
export class Health extends Readiness {
  @ApiProperty({ enum: ['ok', 'degraded'] })
  status!: 'ok' | 'degraded';

  @ApiProperty({ enum: [true] })
  live!: true;
}

const PROJECTION = { mode: 'inline', checkpoint: '18:18', head: '18:18', caught_up: true, lag_events: 0, lag_events_capped: false, lag_seconds: 0 } as const;
const BEHIND = { ...PROJECTION, head: '1045:1045', checkpoint: '18:18', lag_events: 1000, lag_events_capped: true, lag_seconds: 4.2 } as const;
const REASON = `more than ${READY_LIMITS.maxEvents} events wait to be applied`;

export const READY_EXAMPLE = { ready: true, projection: PROJECTION };
export const NOT_READY_EXAMPLE = { ready: false, reason: REASON, projection: BEHIND };
export const HEALTH_EXAMPLE = { status: 'ok', live: true, ...READY_EXAMPLE };
export const DEGRADED_EXAMPLE = { status: 'degraded', live: true, ...NOT_READY_EXAMPLE };
export const LIVE_EXAMPLE = { status: 'ok', live: true };
