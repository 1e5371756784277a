// The body of a proxy invocation: any media type, read as bytes up to 1 MiB, a Content-Encoding undone (the vault must
// read what it detokenizes and forwards). Every answer made here is the vault's own: it carries SVC-PROXY-ERROR.
import { NextFunction, raw, Request, Response } from 'express';
import { problem } from '../http/problem';

/** `/proxy` and everything under it, as Express routes them (case-insensitive, a trailing slash allowed). */
const PROXY_PATH = /^\/proxy(?:\/|$)/i;

export const isProxyPath = (req: Request): boolean => PROXY_PATH.test(req.path);

export const PROXY_ERROR_HEADER = 'SVC-PROXY-ERROR';

const readBytes = raw({ limit: '1mb', type: () => true });

const READ_ERRORS: Record<string, [number, string]> = {
  'entity.too.large': [413, 'The request body is larger than 1 MiB.'],
  'encoding.unsupported': [415, 'The request body encoding is not supported (identity, gzip, deflate or br).'],
  'request.size.invalid': [400, 'The request body is shorter or longer than its Content-Length.'],
  'request.aborted': [400, 'The request was aborted before its body was read.'],
};

export function proxyBodies(req: Request, res: Response, next: NextFunction): void {
  if (!isProxyPath(req)) return next();
  res.setHeader(PROXY_ERROR_HEADER, 'true');
  readBytes(req, res, (error?: unknown) => {
    if (error) {
      // Fixed texts only: body-parser's messages may quote the request.
      const { type, statusCode } = error as { type?: string; statusCode?: number };
      const [status, detail] = Object.hasOwn(READ_ERRORS, type ?? '')
        ? READ_ERRORS[type!]
        : [typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 ? statusCode : 400, 'The request body cannot be read.'];
      res.status(status).type('application/problem+json').send(JSON.stringify(problem(status, detail, status === 400 ? { body: [detail] } : undefined)));
      return;
    }
    if (!Buffer.isBuffer(req.body) || req.body.length === 0) req.body = undefined;
    next();
  });
}
