// Maps every failure to problem details. Domain errors carry their kind; anything unknown is a logged 500 with a bland body.
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError, DomainErrorKind } from '@vault/domain';
import { JsonLogger, LOGGER } from '@vault/nest';
import { problem, Problem } from './problem';

const STATUS: Record<DomainErrorKind, number> = {
  validation: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unprocessable: 422,
  unavailable: 503,
  bad_gateway: 502,
  gateway_timeout: 504,
};

/**
 * Fixed texts for HttpExceptions that are not ours: Nest's unknown-route 404 and the errors it maps from Express
 * and body-parser. Their own messages quote the request (`Cannot GET /path?query`, V8's JSON excerpt, a path's bad
 * percent-encoding), so they are never passed on.
 */
const FIXED_DETAILS: Record<number, string> = {
  400: 'The request cannot be read.',
  404: 'No route matches this method and path.',
  405: 'This method is not allowed on this path.',
  413: 'The request body is larger than 1 MiB.',
  415: 'The request body encoding is not supported.',
};

@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: JsonLogger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const body = this.toProblem(error, response);
    if (response.headersSent) return;
    if (body.status === 429 && error instanceof HttpException) {
      const retryAfter = (error.getResponse() as { retryAfter?: number }).retryAfter;
      if (retryAfter) response.setHeader('Retry-After', String(retryAfter));
    }
    if (error instanceof DomainError && error.kind === 'unavailable' && error.retryAfterSeconds !== undefined) {
      response.setHeader('Retry-After', String(error.retryAfterSeconds));
    }
    response.status(body.status).type('application/problem+json').send(JSON.stringify(body));
  }

  private toProblem(error: unknown, response: Response): Problem {
    if (error instanceof DomainError) return problem(STATUS[error.kind], error.message, error.errors);
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const payload = error.getResponse();
      if (typeof payload === 'object' && payload && 'type' in payload && 'status' in payload) {
        const { retryAfter: _retryAfter, ...body } = payload as Problem & { retryAfter?: number };
        return body;
      }
      return this.foreign(status, (error as { cause?: unknown }).cause);
    }
    // Only the error's class is logged, with the request id: messages of libraries can quote request content.
    this.logger.error('unhandled error', {
      error: errorClass(error),
      request_id: response.getHeader('X-Request-Id'),
    });
    return problem(500);
  }

  /** A 4xx HttpException from Nest or Express, answered with a fixed text for its status. */
  private foreign(status: number, cause: unknown): Problem {
    if (status === 400 && (cause as { name?: unknown } | undefined)?.name === 'URIError') {
      return problem(400, 'The request path is not valid percent-encoding.', { path: ['path must be valid percent-encoding'] });
    }
    if (status === 400 && (cause as { type?: string } | undefined)?.type === 'entity.parse.failed') {
      return problem(400, 'The request body cannot be read.', { body: ['body is not valid JSON.'] });
    }
    if (status >= 500) return problem(500);
    const detail = FIXED_DETAILS[status];
    return problem(status, detail, status === 400 ? { request: ['the request cannot be read'] } : undefined);
  }
}

const errorClass = (error: unknown): string => {
  if (error instanceof Error) return error.constructor.name;
  if (typeof error === 'object' && error !== null) return error.constructor?.name ?? 'Object';
  return typeof error;
};
