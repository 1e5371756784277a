// JSON bodies only: 415 for another media type, 400 for invalid JSON or a non-object, 413 past 1 MiB.
import { json, NextFunction, Request, Response } from 'express';
import { problem } from './problem';

const LIMIT = '1mb';
const JSON_TYPES = ['application/json', 'application/merge-patch+json', 'application/*+json'];

const parse = json({ limit: LIMIT, type: JSON_TYPES, strict: false });

export function jsonBodies(req: Request, res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  const allowed = req.method === 'PATCH' ? ['application/merge-patch+json', 'application/json'] : ['application/json'];
  if (!allowed.includes(type)) {
    send(res, 415, `The request body must be ${allowed.join(' or ')}.`);
    return;
  }
  parse(req, res, (error?: unknown) => {
    if (error) return next(error);
    const body: unknown = req.body;
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      send(res, 400, 'The request body must be a JSON object.', { body: ['must be a JSON object'] });
      return;
    }
    next();
  });
}

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function send(res: Response, status: number, detail: string, errors?: Record<string, string[]>): void {
  res.status(status).type('application/problem+json').send(JSON.stringify(problem(status, detail, errors)));
}
