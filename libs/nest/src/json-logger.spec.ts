import { runWithRequestContext } from '@vault/application';
import { JsonLogger } from './json-logger';

const capture = (level: 'debug' | 'info' | 'warn' | 'error' = 'debug') => {
  const lines: string[] = [];
  const logger = new JsonLogger(level, (line) => lines.push(line));
  return { logger, lines, entries: () => lines.map((line) => JSON.parse(line)) };
};

describe('JsonLogger', () => {
  it('writes one JSON object per line: ISO time, level name, msg and the fields', () => {
    const { logger, lines, entries } = capture();
    logger.info('vault API listening', { port: 3000, data_dir: '/var/vault' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(entries()[0]).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), level: 'info', msg: 'vault API listening', port: 3000, data_dir: '/var/vault' });
  });

  it('leaves out what is below its level', () => {
    const { logger, entries } = capture('warn');
    logger.debug('d');
    logger.info('i');
    logger.warn('w');
    logger.error('e');
    expect(entries().map((e) => [e.level, e.msg])).toEqual([['warn', 'w'], ['error', 'e']]);
  });

  it('adds the request id of the request it runs for, unless the fields name one', () => {
    const { logger, entries } = capture();
    runWithRequestContext({ requestId: 'req-7', projectionPending: false }, () => {
      logger.info('inside');
      logger.info('named', { request_id: 'req-8' });
    });
    logger.info('outside');
    expect(entries().map((e) => e.request_id)).toEqual(['req-7', 'req-8', undefined]);
  });

  it('redacts fields whose name says they hold a secret or a caller\'s value, as a second line of defence', () => {
    const { logger, lines } = capture();
    logger.info('oops', { key: 'key_Zq9', headers: { 'svc-api-key': 'Zq9' }, nested: { data: '918-27-3645', metadata: { a: 'Zq9' } }, 'svc-api-key': 'Zq9' });
    expect(lines[0]).not.toMatch(/Zq9|918-27/);
    expect(JSON.parse(lines[0])).toMatchObject({ key: '[redacted]', headers: '[redacted]', nested: { data: '[redacted]', metadata: '[redacted]' } });
  });

  it('takes Nest\'s calls: its log and verbose lines at debug with their context, an Error by class and message, never a stack', () => {
    const { logger, entries } = capture();
    logger.log('Mapped {/tokens, POST} route', 'RouterExplorer');
    logger.verbose('verbose', 'InstanceLoader');
    logger.warn('careful', 'NestApplication');
    logger.error(new TypeError('boom'), 'TypeError: boom\n    at secret (file.ts:1:1)', 'ExceptionsHandler');
    expect(entries().map(({ time: _time, ...rest }) => rest)).toEqual([
      { level: 'debug', msg: 'Mapped {/tokens, POST} route', context: 'RouterExplorer' },
      { level: 'debug', msg: 'verbose', context: 'InstanceLoader' },
      { level: 'warn', msg: 'careful', context: 'NestApplication' },
      { level: 'error', msg: 'TypeError: boom', context: 'ExceptionsHandler' },
    ]);
    const { logger: quiet, lines } = capture('info');
    quiet.log('Nest application successfully started', 'NestApplication');
    expect(lines).toEqual([]);
  });
});

describe('JsonLogger.request', () => {
  const fields = { request_id: 'req-1', method: 'POST', path: '/tokens/search', status: 200, duration_ms: 1.25, application_id: 'app-1' };

  it('writes the request line as info writes any line: one JSON object with ISO time, level and msg', () => {
    const { logger, lines, entries } = capture('info');
    logger.request(fields);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('\n');
    expect(entries()[0]).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), level: 'info', msg: 'request', ...fields });
  });

  it('has the same shape as the line info() writes for it', () => {
    const fast = capture('info');
    const slow = capture('info');
    fast.logger.request(fields);
    slow.logger.info('request', fields);
    const withoutTime = ({ time: _time, ...rest }: Record<string, unknown>) => rest;
    expect(withoutTime(fast.entries()[0])).toEqual(withoutTime(slow.entries()[0]));
  });

  it('leaves out an unauthenticated request\'s application id, and writes nothing below info', () => {
    const { logger, entries } = capture('info');
    logger.request({ ...fields, application_id: undefined });
    expect(entries()[0]).not.toHaveProperty('application_id');
    const quiet = capture('warn');
    quiet.logger.request(fields);
    expect(quiet.lines).toEqual([]);
  });
  it('redacts the credentials of store URLs and connection strings in messages, fields and errors', () => {
    const { logger, lines } = capture();
    logger.error(new Error('Request to http://user:SECRETPW5678@127.0.0.1:1/version has failed'));
    logger.error('vault API failed to start', { error: 'esdb://admin:SECRETPW77@127.0.0.1:2113?tls=false&password=SECRETPW99' });
    logger.warn('projector retrying', { nested: { url: 'https://u:SECRETPW1@meili.example:7700/indexes?apiKey=SECRETPW2' } });
    logger.info('store', { cause: new Error('dial esdb://a:SECRETPW3@h:2113 failed') });
    expect(lines).toHaveLength(4);
    for (const line of lines) expect(line).not.toMatch(/SECRETPW/);
    expect(lines.join('\n')).toContain('http://[redacted]@127.0.0.1:1/version');
    expect(lines.join('\n')).toContain('esdb://[redacted]@127.0.0.1:2113?tls=false&password=[redacted]');
  });
});
