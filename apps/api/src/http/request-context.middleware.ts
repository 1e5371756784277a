// Gives every request an id (X-Request-Id, echoed or generated), runs it in a request context, and logs one line per request.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithRequestContext } from '@vault/application';
import type { JsonLogger } from '@vault/nest';

const VALID_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export function requestContext(logger: JsonLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && VALID_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // Path only: no query string, headers or bodies, so no key or token data can reach the log.
      logger.info('request', {
        request_id: requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        application_id: (req as Request & { principal?: { applicationId: string } }).principal?.applicationId,
      });
    });
    runWithRequestContext({ requestId, projectionPending: false }, () => next());
  };
}
