// JSON bodies only: 415 for another media type or charset, 413 past 1 MiB, 400 for invalid JSON, a body nesting more
// than 64 deep, or a non-object (but on the tokenize and detokenize paths, which take any JSON value). Nothing after
// this middleware sees a body that could overflow a recursive walker.
import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiConsumes, type ExamplesObject, type SchemaObject } from '@nestjs/swagger';
import type { FieldErrors } from '@vault/domain';
import { NextFunction, raw, Request, Response } from 'express';
import { isProxyPath } from '../proxies/proxy-bodies';
import { readJsonText } from './json-text';
import { ApiProblem, problem } from './problem';

const LIMIT = '1mb';

/** The media types of a body: a PATCH may send a JSON merge patch (RFC 7396) as such. */
const MEDIA_TYPES = ['application/json'];
const PATCH_MEDIA_TYPES = ['application/merge-patch+json', 'application/json'];

/**
 * POST paths whose body may be any JSON value (http/any-json-body.ts): tokenize takes arrays as well as
 * objects and names a bare primitive itself, detokenize takes anything. Express routes paths case-insensitively and
 * with a trailing slash, and so does this.
 */
const ANY_JSON_BODY_PATHS = /^\/(?:(?:tokens\/)?tokenize|detokenize)\/?$/i;

/** The media types are checked below, before reading; body-parser only reads (and inflates) the bytes. */
const readBytes = raw({ limit: LIMIT, type: () => true });

/**
 * Errors of body-parser's reading step, by their `type`: answered here, each with a fixed text; a 400 also says what
 * went wrong on `errors.body`, as every 400 does.
 */
const READ_ERRORS: Record<string, [number, string, string?]> = {
  'entity.too.large': [413, 'The request body is larger than 1 MiB.'],
  'encoding.unsupported': [415, 'The request body encoding is not supported.'],
  'request.size.invalid': [400, 'The request body is shorter or longer than its Content-Length.', 'body is shorter or longer than its Content-Length'],
  'request.aborted': [400, 'The request was aborted before its body was read.', 'body was cut off before its end'],
};

/** The Content-Encodings body-parser undoes; any other is a 415 before reading. Named from this list, never echoed. */
const DECODED_ENCODINGS = ['gzip', 'deflate', 'br', 'zstd'];

/** Why a body that failed to read (not one of READ_ERRORS) is a 4xx: nearly always bytes that do not decode as labelled. */
const unreadable = (req: Request): string => {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity') return 'body could not be read';
  const named = DECODED_ENCODINGS.includes(encoding) ? `${encoding} data` : 'data of its Content-Encoding';
  return `body could not be decoded: it is not valid ${named} (supported Content-Encodings: identity, ${DECODED_ENCODINGS.slice(0, 3).join(', ')})`;
};

export function jsonBodies(req: Request, res: Response, next: NextFunction): void {
  // Read before, as bytes of any type (proxies/proxy-bodies.ts).
  if (!hasBody(req) || isProxyPath(req)) return next();
  const [mediaType, ...parameters] = (req.headers['content-type'] ?? '').split(';').map((part) => part.trim().toLowerCase());
  const allowed = req.method === 'PATCH' ? PATCH_MEDIA_TYPES : MEDIA_TYPES;
  if (!allowed.includes(mediaType)) {
    send(res, 415, wrongMediaType(allowed));
    return;
  }
  const charset = parameters.find((parameter) => parameter.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    send(res, 415, 'The request body must be encoded as UTF-8.');
    return;
  }
  readBytes(req, res, (error?: unknown) => {
    if (error) {
      // Their messages may quote the request (a charset, a zlib complaint): only fixed texts are answered.
      const { type, statusCode } = error as { type?: string; statusCode?: number };
      const known = Object.hasOwn(READ_ERRORS, type ?? '') ? READ_ERRORS[type!] : null;
      if (known) send(res, known[0], known[1], known[2] === undefined ? undefined : { body: [known[2]] });
      else if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
        send(res, statusCode, 'The request body cannot be read.', statusCode === 400 ? { body: [unreadable(req)] } : undefined);
      }
      else next(error);
      return;
    }
    const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // An empty chunked body is no body, as a Content-Length of 0 is.
    if (bytes.length === 0) {
      req.body = undefined;
      return next();
    }
    parseBody(bytes, req, res, next).catch(next);
  });
}

async function parseBody(bytes: Buffer, req: Request, res: Response, next: NextFunction): Promise<void> {
  const text = bytes.toString('utf8');
  const read = await readJsonText(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!read.ok) {
    send(res, 400, 'The request body cannot be read.', { body: [`body ${read.problem}`] });
    return;
  }
  const body = read.value;
  const anyValue = req.method === 'POST' && ANY_JSON_BODY_PATHS.test(req.path);
  if (!anyValue && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    send(res, 400, 'The request body must be a JSON object.', { body: ['body must be a JSON object'] });
    return;
  }
  req.body = body;
  next();
}

const wrongMediaType = (allowed: string[]) => `The request body must be ${allowed.join(' or ')}.`;

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function send(res: Response, status: number, detail: string, errors?: Record<string, string[]>): void {
  res.status(status).type('application/problem+json').send(JSON.stringify(problem(status, detail, errors)));
}

export interface JsonBodyDocs {
  /** A DTO class, or a schema where one cannot say it (any JSON value, a choice of shapes). */
  type?: Function;
  schema?: SchemaObject;
  description?: string;
  /** Bodies the service accepts as they stand (test/e2e/openapi.spec.ts sends each). */
  examples: ExamplesObject;
  required?: boolean;
  /** A PATCH: a JSON merge patch. */
  mergePatch?: boolean;
  /** A 400 this route gives for a bad body, as its example; else the one for a body that is not an object. */
  invalid?: { detail: string; errors: FieldErrors };
}

/** The OpenAPI side of a route's JSON body: its schema and examples, and the errors this middleware gives first. */
export const ApiJsonBody = ({ type, schema, description, examples, required = true, mergePatch = false, invalid }: JsonBodyDocs) => {
  const mediaTypes = mergePatch ? PATCH_MEDIA_TYPES : MEDIA_TYPES;
  return applyDecorators(
    ApiConsumes(...mediaTypes),
    type ? ApiBody({ type, description, examples, required }) : ApiBody({ schema: schema ?? {}, description, examples, required }),
    ApiProblem(
      400,
      'The body is not valid JSON (the message says where it stops parsing), nests more than 64 deep, is too large in values or members, or fails validation: `errors` names each field.',
      invalid?.detail ?? 'The request body must be a JSON object.',
      invalid?.errors ?? { body: ['body must be a JSON object'] },
    ),
    ApiProblem(413, 'The body is over 1 MiB, after any Content-Encoding is undone.', READ_ERRORS['entity.too.large'][1]),
    ApiProblem(415, `The body is not ${mediaTypes.join(' or ')}, or not UTF-8, or has a Content-Encoding other than gzip, deflate, br or zstd.`, wrongMediaType(mediaTypes)),
  );
};
