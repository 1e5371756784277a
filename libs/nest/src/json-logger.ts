// JSON lines on stdout. Callers pass only ids, paths and counts: never bodies, headers, keys or token data.
import type { LoggerService } from '@nestjs/common';
import { currentRequestContext } from '@vault/application';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export class JsonLogger implements LoggerService {
  constructor(
    private readonly level: Level = 'info',
    private readonly out: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  ) {}

  info(msg: string, fields: Record<string, unknown> = {}): void {
    this.write('info', msg, fields);
  }

  warn(msg: string, fields: Record<string, unknown> = {}): void {
    this.write('warn', msg, fields);
  }

  error(msg: unknown, fields: Record<string, unknown> | string = {}): void {
    this.write('error', msg, typeof fields === 'string' ? {} : fields);
  }

  debug(msg: string, fields: Record<string, unknown> = {}): void {
    this.write('debug', msg, fields);
  }

  // LoggerService (Nest's own messages): the optional params are a context name or a stack.
  log(message: unknown, ...optional: unknown[]): void {
    this.write('info', String(message), contextOf(optional));
  }

  verbose(message: unknown, ...optional: unknown[]): void {
    this.write('debug', String(message), contextOf(optional));
  }

  private write(level: Level, message: unknown, fields: Record<string, unknown>): void {
    if (ORDER[level] < ORDER[this.level]) return;
    // Nest hands over Error objects too; their class and message (never a stack) are what a reader needs.
    const msg = message instanceof Error ? `${message.name}: ${message.message}` : typeof message === 'string' ? message : JSON.stringify(message);
    const requestId = currentRequestContext()?.requestId;
    this.out(JSON.stringify({ time: new Date().toISOString(), level, msg, ...(requestId ? { request_id: requestId } : {}), ...fields }));
  }
}

const contextOf = (optional: unknown[]): Record<string, unknown> => {
  const context = optional.find((o) => typeof o === 'string');
  return context ? { context } : {};
};

