// GET /health: liveness, readiness and the projection lag, answered without a key.
export const healthSchemas = {
  Readiness: {
    type: 'object',
    description:
      'Ready: the stores answer, the projector of this process has caught up with the log once (inline mode), and at most 1,000 events, none older than 30 s, wait to be applied to the read models.',
    required: ['ready'],
    properties: {
      status: { type: 'string', enum: ['ok', 'degraded'], description: 'GET /health only' },
      live: { type: 'boolean', description: 'GET /health only' },
      ready: { type: 'boolean' },
      reason: { type: 'string', description: 'Why not ready', example: 'more than 1000 events wait to be applied' },
      error: { type: 'string', description: 'Set when a store did not answer', example: 'a store did not answer' },
      projection: {
        type: 'object',
        properties: {
          mode: { type: 'string', enum: ['inline', 'external'] },
          checkpoint: { type: 'string', nullable: true, description: 'Log position the read models have applied', example: '1042:1042' },
          head: { type: 'string', nullable: true, description: 'Log position of the last event', example: '1045:1045' },
          caught_up: { type: 'boolean' },
          lag_events: { type: 'integer', description: 'Events not applied yet, counted up to 1,000', example: 3 },
          lag_events_capped: { type: 'boolean', description: 'More than lag_events are pending' },
          lag_seconds: { type: 'number', description: 'Age of the oldest event not applied yet', example: 0.012 },
          failure: { type: 'string', description: 'Why the projector stopped for good (inline mode)' },
        },
      },
    },
  },
};

export const healthResponses = {
  Ready: { description: 'Ready', content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } } },
  NotReady: {
    description: 'Not ready: a store did not answer, the projector has not caught up once or stopped, or the read models lag',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' } } },
  },
};

export const healthPaths = {
  '/health': {
    get: {
      summary: 'Liveness and readiness, with projection lag',
      security: [],
      responses: { '200': { $ref: '#/components/responses/Ready' }, '503': { $ref: '#/components/responses/NotReady' } },
    },
  },
};
