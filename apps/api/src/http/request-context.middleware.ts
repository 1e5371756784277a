// Gives every request an id (X-Request-Id, echoed or generated), runs it in a request context, logs one line per
// request and counts it in the metrics by its route pattern.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { runWithRequestContext } from '@vault/application';
import type { JsonLogger, VaultMetrics } from '@vault/nest';

const VALID_ID = /^[A-Za-z0-9._:-]{1,200}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Every fixed word of our routes; any other path segment is a caller's value and is logged as `:value`. */
const ROUTE_WORDS = new Set([
  'permissions', 'applications', 'regenerate', 'tokens', 'search', 'tokenize', 'detokenize', 'reactor-formulas',
  'reator-formula', 'reactors', 'react', 'logs', 'tenants', 'self', 'health', 'live', 'ready', 'openapi.json', 'docs', 'metrics', 'assets', 'webhooks', 'deliveries', 'proxies', 'proxy', 'reports', 'usage', 'console',
]);

/** The path as logged: route words and ids (UUIDs) as sent, anything else replaced, since a caller may put data there. */
export const loggablePath = (path: string): string =>
  path
    .split('/')
    .map((segment) => (segment === '' || ROUTE_WORDS.has(segment.toLowerCase()) || UUID.test(segment) ? segment : ':value'))
    .join('/');

/**
 * The metrics label of a request's route: the pattern Express matched (`/tokens/:id`), or `unrouted` when it was
 * answered before routing (a body refused by the body parser, an unknown path, a file of the docs). Never the path
 * itself, which holds ids and whatever a caller put there.
 */
export const routeLabel = (req: Request): string => {
  const pattern = (req as Request & { route?: { path?: unknown } }).route?.path;
  return typeof pattern === 'string' ? pattern : 'unrouted';
};

export function requestContext(logger: JsonLogger, metrics: Pick<VaultMetrics, 'requestFinished'>) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && VALID_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // Path only, with caller values replaced: no query string, headers or bodies, so no key or token data can reach
      // the log (GET /tokens/123-45-6789 is logged as /tokens/:value).
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.request({
        request_id: requestId,
        method: req.method,
        path: loggablePath(req.path),
        status: res.statusCode,
        duration_ms: durationMs,
        application_id: (req as Request & { principal?: { applicationId: string } }).principal?.applicationId,
      });
      metrics.requestFinished(req.method, routeLabel(req), res.statusCode, durationMs / 1000);
    });
    runWithRequestContext({ requestId, projectionPending: false }, () => next());
  };
}
