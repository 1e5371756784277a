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
  unprocessable: 422,
};

/** Errors raised by body parsing (body-parser) carry these types. */
const BODY_ERRORS: Record<string, number> = {
  'entity.too.large': 413,
  'entity.parse.failed': 400,
  'encoding.unsupported': 415,
  'charset.unsupported': 415,
};

@Catch()
export class ProblemFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: JsonLogger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const body = this.toProblem(error);
    if (response.headersSent) return;
    if (body.status === 429 && error instanceof HttpException) {
      const retryAfter = (error.getResponse() as { retryAfter?: number }).retryAfter;
      if (retryAfter) response.setHeader('Retry-After', String(retryAfter));
    }
    response.status(body.status).type('application/problem+json').send(JSON.stringify(body));
  }

  private toProblem(error: unknown): Problem {
    if (error instanceof DomainError) return problem(STATUS[error.kind], error.message, error.errors);
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const payload = error.getResponse();
      if (typeof payload === 'object' && payload && 'type' in payload && 'status' in payload) {
        const { retryAfter: _retryAfter, ...body } = payload as Problem & { retryAfter?: number };
        return body;
      }
      const detail = typeof payload === 'string' ? payload : (payload as { message?: unknown }).message;
      return problem(status, typeof detail === 'string' ? detail : undefined);
    }
    const bodyStatus = BODY_ERRORS[(error as { type?: string })?.type ?? ''];
    if (bodyStatus === 413) return problem(413, 'The request body is larger than 1 MiB.');
    if (bodyStatus === 400) return problem(400, 'The request body is not valid JSON.', { body: ['must be valid JSON'] });
    if (bodyStatus === 415) return problem(415, 'The request body encoding is not supported.');
    // Only the error's class and message are logged: messages of ours never hold token data or keys.
    this.logger.error('unhandled error', {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return problem(500);
  }
}
