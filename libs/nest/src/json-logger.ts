// JSON lines on stdout, written by pino. Callers pass only ids, paths and counts: never bodies, headers, keys or token
// data. pino's redact paths are a second line behind that rule, for a field someone adds by mistake.
import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';
import { redactCredentials } from '@vault/adapters';
import { currentRequestContext } from '@vault/application';
import './request-context';

type Level = 'debug' | 'info' | 'warn' | 'error';
type Fields = Record<string, unknown>;

/** Field names that could only hold a secret or a caller's value, at the top level and one level down. */
const SECRET_FIELDS = ['key', 'api_key', 'apiKey', 'management_key', 'svc-api-key', 'authorization', 'headers', 'body', 'data', 'metadata', 'mask', 'args', 'query'];
const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => [`["${field}"]`, `*["${field}"]`]);

export class JsonLogger implements LoggerService {
  private readonly pino: Logger;

  constructor(level: Level = 'info', out?: (line: string) => void) {
    this.pino = pino(
      {
        level,
        base: undefined,
        messageKey: 'msg',
        timestamp: pino.stdTimeFunctions.isoTime,
        formatters: { level: (label) => ({ level: label }) },
        // The request id of the request this call runs for (AsyncLocalStorage), unless the fields name one.
        mixin: () => {
          const requestId = currentRequestContext()?.requestId;
          return requestId ? { request_id: requestId } : {};
        },
        redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      },
      // Written through process.stdout at each call (not pino's own fd writer), so a test that captures stdout sees it.
      { write: out ? (line: string) => out(line.endsWith('\n') ? line.slice(0, -1) : line) : (line: string) => process.stdout.write(line) },
    );
  }

  info(msg: string, fields: Fields = {}): void {
    this.write('info', msg, fields);
  }

  warn(msg: string, fields: Fields | string = {}): void {
    this.write('warn', msg, fieldsOf(fields));
  }

  /** Nest calls error(message, stack?, context?): the stack is dropped, since it can quote what failed to parse. */
  error(msg: unknown, fields: Fields | string = {}, ...nest: unknown[]): void {
    this.write('error', msg, typeof fields === 'string' ? contextOf(fields.includes('\n') ? nest : [fields, ...nest]) : fields);
  }

  debug(msg: string, fields: Fields | string = {}): void {
    this.write('debug', msg, fieldsOf(fields));
  }

  // LoggerService: only Nest itself calls these (our code uses info and debug). Its `log` channel is start-up chatter
  // (InstanceLoader, RoutesResolver, RouterExplorer, NestFactory, NestApplication), so it goes to debug.
  log(message: unknown, ...optional: unknown[]): void {
    this.write('debug', message, contextOf(optional));
  }

  verbose(message: unknown, ...optional: unknown[]): void {
    this.write('debug', message, contextOf(optional));
  }

  fatal(message: unknown, ...optional: unknown[]): void {
    this.write('error', message, contextOf(optional));
  }

  /**
   * The one line per request (request-context middleware), the hottest log call: its fields are ids, a method, a path
   * with caller values already replaced, a status and a duration, none of which pino's redaction could find anything in,
   * so it is serialised directly into pino's destination (about 2% of a search's CPU at info level went to pino).
   */
  request(fields: RequestLine): void {
    if (!this.pino.isLevelEnabled('info')) return;
    const line = JSON.stringify({ level: 'info', time: new Date().toISOString(), ...fields, msg: 'request' });
    (this.pino as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym].write(line + '\n');
  }

  private write(level: Level, message: unknown, fields: Fields): void {
    if (!this.pino.isLevelEnabled(level)) return;
    // Nest hands over Error objects too; their class and message (never a stack) are what a reader needs.
    const msg = message instanceof Error ? `${message.name}: ${message.message}` : typeof message === 'string' ? message : JSON.stringify(message);
    // A store's client may quote its URL or connection string, credentials included (`esdb://user:pw@…`).
    this.pino[level](redactStrings(fields, 1) as Fields, redactCredentials(msg ?? ''));
  }
}

/** A request as logged: nothing a caller sent but what the middleware has checked or replaced. */
export interface RequestLine {
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  application_id: string | undefined;
}

/** `value` with redactCredentials applied to its strings, down to `depth` levels of objects below the top one. */
const redactStrings = (value: unknown, depth: number): unknown => {
  if (typeof value === 'string') return redactCredentials(value);
  if (value instanceof Error) return redactCredentials(`${value.name}: ${value.message}`);
  if (value === null || typeof value !== 'object' || depth < 0 || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = redactStrings(field, depth - 1);
  return out;
};

/** Nest passes its context name where our callers pass fields. */
const fieldsOf = (fields: Fields | string): Fields => (typeof fields === 'string' ? { context: fields } : fields);

const contextOf = (optional: unknown[]): Fields => {
  const context = optional.find((o) => typeof o === 'string');
  return context ? { context } : {};
};
