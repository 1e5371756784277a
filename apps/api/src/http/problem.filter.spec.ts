import { BadRequestException, HttpException, NotFoundException, PayloadTooLargeException, type ArgumentsHost } from '@nestjs/common';
import { AppendTooLargeError } from '@vault/application';
import { DomainError, unavailable } from '@vault/domain';
import { JsonLogger } from '@vault/nest';
import { ProblemFilter } from './problem.filter';

/** Runs the filter on `error` and returns the response it sent and the log lines it wrote. */
const filter = (error: unknown) => {
  const lines: string[] = [];
  const sent: { status?: number; body?: string; headers: Record<string, unknown> } = { headers: { 'X-Request-Id': 'req-42' } };
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return this;
    },
    type() {
      return this;
    },
    send(body: string) {
      sent.body = body;
      return this;
    },
    setHeader(name: string, value: unknown) {
      sent.headers[name] = value;
    },
    getHeader(name: string) {
      return sent.headers[name];
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  new ProblemFilter(new JsonLogger('debug', (line) => lines.push(line))).catch(error, host);
  return { status: sent.status, body: JSON.parse(sent.body ?? '{}'), log: lines.map((line) => JSON.parse(line)), headers: sent.headers };
};

const SECRET = 'ssn 987-65-4321 of Zq9secret';

describe('ProblemFilter, for an unexpected error', () => {
  it.each<[string, unknown, string]>([
    ['an Error whose message quotes the request', new Error(SECRET), 'Error'],
    ['a TypeError from a library', new TypeError(`Cannot read properties of undefined (reading '${SECRET}')`), 'TypeError'],
    ['a RangeError', new RangeError(SECRET), 'RangeError'],
    ['an error of its own class', new (class SqliteError extends Error {})(SECRET), 'SqliteError'],
    ['a thrown string', SECRET, 'string'],
    ['a thrown object', { message: SECRET }, 'Object'],
  ])('%s: a bland 500, and only the class and request id in the log', (_title, error, logged) => {
    const { status, body, log } = filter(error);
    expect(status).toBe(500);
    expect(body).toEqual({ type: 'https://httpstatuses.io/500', title: 'An unexpected error occurred.', status: 500 });
    expect(log).toEqual([expect.objectContaining({ level: 'error', msg: 'unhandled error', error: logged, request_id: 'req-42' })]);
    expect(JSON.stringify(log)).not.toMatch(/987|Zq9/);
  });
});

describe('ProblemFilter, for an HttpException that is not ours', () => {
  const bodyParserError = Object.assign(new SyntaxError(`Unexpected token ''', ..."data":'987-65-43"... is not valid JSON`), { status: 400, type: 'entity.parse.failed' });
  const uriError = new URIError(`Failed to decode param '${SECRET}%FF'`);

  it.each<[string, HttpException, number, Record<string, unknown>]>([
    ['body-parser\'s JSON error, as Nest maps it', new BadRequestException(bodyParserError.message, { cause: bodyParserError }), 400, { errors: { body: ['body is not valid JSON.'] } }],
    ['a path that is not valid percent-encoding', new BadRequestException(uriError.message, { cause: uriError }), 400, { errors: { path: ['path must be valid percent-encoding'] } }],
    ['any other 400 with a message', new BadRequestException(SECRET), 400, { detail: 'The request cannot be read.' }],
    ['an unknown route, whose message holds the URL', new NotFoundException(`Cannot GET /tokens?q=${SECRET}`), 404, { detail: 'No route matches this method and path.' }],
    ['a 413', new PayloadTooLargeException(SECRET), 413, { detail: 'The request body is larger than 1 MiB.' }],
    ['a 418 with a message', new HttpException(SECRET, 418), 418, {}],
  ])('%s: a fixed text, never its message', (_title, error, status, expected) => {
    const { status: sent, body } = filter(error);
    expect(sent).toBe(status);
    expect(body).toMatchObject({ status, ...expected });
    expect(JSON.stringify(body)).not.toMatch(/987|Zq9|Unexpected token/);
  });
});

describe('ProblemFilter, for our own errors', () => {
  it('answers a domain error with its kind, message and field errors, prototype-named fields included', () => {
    const errors = JSON.parse('{"__proto__":["__proto__ is not an allowed property."],"constructor":["constructor is not an allowed property."]}');
    const { status, body } = filter(new DomainError('validation', 'One or more validation errors occurred.', errors));
    expect(status).toBe(400);
    expect(Object.keys(body.errors)).toEqual(['__proto__', 'constructor']);
  });

  it('answers an append the event store refuses for its size with 413, and logs nothing', () => {
    const { status, body, log } = filter(new AppendTooLargeError('formula-1', 8_388_608));
    expect(status).toBe(413);
    expect(body).toEqual({
      type: 'https://httpstatuses.io/413',
      title: 'Payload Too Large',
      status: 413,
      detail: 'The change is larger than the event store accepts in one write (8388608 bytes).',
    });
    expect(log).toEqual([]);
  });

  it('answers an unavailable error (a full reactor queue) with 503 and its Retry-After, and logs nothing', () => {
    const { status, body, log, headers } = filter(unavailable('Too many reactor invocations are waiting; try again later.', 7));
    expect(status).toBe(503);
    expect(headers['Retry-After']).toBe('7');
    expect(body).toEqual({
      type: 'https://httpstatuses.io/503',
      title: 'Service Unavailable',
      status: 503,
      detail: 'Too many reactor invocations are waiting; try again later.',
    });
    expect(log).toEqual([]);
  });

  it('answers a failed reactor with 422 and errors.reactor, and logs nothing of its message', () => {
    const { status, body, log, headers } = filter(new DomainError('unprocessable', 'The reactor failed.', { reactor: [SECRET] }));
    expect(status).toBe(422);
    expect(body.errors).toEqual({ reactor: [SECRET] });
    expect(headers['Retry-After']).toBeUndefined();
    expect(log).toEqual([]);
  });
});
