// A write the event store refuses for its size is the caller's 413, not a logged 500.
import type { ArgumentsHost } from '@nestjs/common';
import { AppendTooLargeError } from '@vault/application';
import { JsonLogger } from '@vault/nest';
import { ProblemFilter } from './problem.filter';

it('answers an append the event store refuses for its size with 413 and logs nothing', () => {
  const lines: string[] = [];
  const sent: { status?: number; body?: string } = {};
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
    getHeader: () => 'req-1',
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  new ProblemFilter(new JsonLogger('debug', (line) => lines.push(line))).catch(new AppendTooLargeError('formula-1', 8_388_608), host);
  expect(sent.status).toBe(413);
  expect(JSON.parse(sent.body ?? '{}')).toEqual({
    type: 'https://httpstatuses.io/413',
    title: 'Payload Too Large',
    status: 413,
    detail: 'The change is larger than the event store accepts in one write (8388608 bytes).',
  });
  expect(lines).toEqual([]);
});
